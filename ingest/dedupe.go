package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"strconv"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// rowKeyer gives rows their dedupe key (DESIGN.md "Dedupe"). The key is a
// hash of the row's normalised fields plus its occurrence number among
// identical rows of the same file: "<32 hex digits>#1", "#2" …. A line
// whose file or API names the vendor's own line id also gets that id as a
// second key (LineKey, lineKey), and is a duplicate when either is known. The format id is not hashed, so
// the same charge exported as CSV and as XLSX gets the same key; fields are
// hashed after normalisation (a decimal as its canonical string, a time as
// Unix seconds), so "1.50" and "1.5", or 2026/10/3 and 2026-10-03, agree.
//
// The key is SHA-256 cut to 128 bits (hex), which keeps the ledger's unique
// index on row_key half the size; 128 bits make an accidental collision
// negligible at any ledger size.
//
// Memory: the occurrence table (occurrences) holds the first 64 bits of the
// hash of each distinct row of the file: 11–21 bytes a row. It holds at most
// seenCap rows (16 MB); the counts of rows past that go to a Counter
// (sorted runs in a temporary file, with a Bloom filter each in memory: about
// 1.3 bytes and 1.5 µs a row), so that memory stays flat however big the
// file.
type rowKeyer struct {
	h     hash.Hash
	buf   []byte
	sum   []byte
	seen  occurrences
	sums  [][16]byte // lineKeys' digests of a batch
	ns    []uint32   // and their occurrence numbers
	spill *Counter   // opened when seen is full
	err   error      // of the spill, sticky: see failed
	ids   *rowKeyer  // numbers the vendor line ids of the file (lineKey)
}

// seenCap is the number of distinct rows the occurrence table holds: as many
// as 2^21 slots (16 MB) take.
var seenCap = 3 << 19

// newRowKeyer is a keyer for a file of about expectRows distinct rows (0:
// unknown), its occurrence table made that big at once (at most seenCap).
func newRowKeyer(expectRows int) *rowKeyer {
	k := &rowKeyer{h: sha256.New(), buf: make([]byte, 0, 512), sum: make([]byte, 0, sha256.Size)}
	if expectRows = min(expectRows, seenCap); expectRows > occurrencesMinSlots {
		k.seen.grow(expectRows)
	}
	return k
}

func (k *rowKeyer) str(s string) {
	k.buf = append(k.buf, s...)
	k.buf = append(k.buf, 0x1f)
}

func (k *rowKeyer) dec(d decimal.Decimal) {
	k.buf = money.AppendCanonical(k.buf, d)
	k.buf = append(k.buf, 0x1f)
}

func (k *rowKeyer) ndec(d decimal.NullDecimal) {
	if d.Valid {
		k.dec(d.Decimal)
		return
	}
	k.str("\x00")
}

func (k *rowKeyer) time(t time.Time) {
	if t.IsZero() {
		k.str("\x00")
		return
	}
	k.buf = strconv.AppendInt(k.buf, t.Unix(), 10)
	if ns := t.Nanosecond(); ns != 0 {
		k.buf = append(k.buf, '.')
		k.buf = strconv.AppendInt(k.buf, int64(ns), 10)
	}
	k.buf = append(k.buf, 0x1f)
}

// finish hashes the collected fields and numbers the occurrence.
func (k *rowKeyer) finish() string {
	sum := k.digest()
	return rowKeyText(sum, k.number(sum))
}

// digest hashes the collected fields: the key's first 16 bytes of SHA-256.
func (k *rowKeyer) digest() [16]byte {
	k.h.Reset()
	k.h.Write(k.buf)
	k.sum = k.h.Sum(k.sum[:0])
	return [16]byte(k.sum)
}

// number counts one more occurrence of the row whose digest is sum and
// returns its number (1 for the first), from the occurrence table while it
// has room, else from the on-disk counter.
func (k *rowKeyer) number(sum [16]byte) uint32 {
	prefix := binary.BigEndian.Uint64(sum[:8])
	n, ok := k.seen.next(prefix, seenCap)
	if !ok {
		n = k.spilled(prefix)
	}
	return n
}

// rowKeyText is the dedupe key of a row: its digest in hex, "#" and the
// number of its occurrence.
func rowKeyText(sum [16]byte, n uint32) string {
	out := make([]byte, 0, 32+1+10)
	out = hex.AppendEncode(out, sum[:])
	out = append(out, '#')
	out = strconv.AppendUint(out, uint64(n), 10)
	return string(out)
}

// spilled counts an occurrence of prefix, a row the full occurrence map does
// not hold, in the on-disk counter (opened on first use). On an error it
// records it for failed and counts 1.
func (k *rowKeyer) spilled(prefix uint64) uint32 {
	if k.err != nil {
		return 1
	}
	if k.spill == nil {
		if k.spill, k.err = OpenCounter(); k.err != nil {
			return 1
		}
	}
	n, err := k.spill.Next(prefix)
	if err != nil {
		k.err = err
		return 1
	}
	return n
}

// failed is the error that made keys since it unreliable, if any: the
// import must stop.
func (k *rowKeyer) failed() error {
	if k.err == nil && k.ids != nil {
		return k.ids.err
	}
	return k.err
}

// close releases the occurrence table and the on-disk counter, if one was
// opened.
func (k *rowKeyer) close() {
	k.seen = occurrences{}
	if k.spill != nil {
		k.spill.Close()
		k.spill = nil
	}
	if k.ids != nil {
		k.ids.close()
		k.ids = nil
	}
}

// lineKeys sets the dedupe key (RowKey) of each of items, in order: a
// line item's key is its provider, account, resource, kind, charge
// category, charge and usage period, quantities and units, unit price,
// amounts, currency and description (lineDigest), and the number of its
// occurrence in the file. The project (sub_account) is left out on
// purpose: a user who fills in projects and imports the file again must
// not double the month.
//
// The batch is hashed first and its occurrences numbered after, in a pass
// of their own: each look-up in the occurrence table (16 MB for a million
// rows) is a cache miss, and between two rows' hashing each was waited for
// alone (0.3 s of CPU of a million-row import); in a row the misses
// overlap.
//
// A LineKey the mapper set is a vendor line id, keyed by lineKey; with
// final set it is already a stored key (gpubill export's x_LineKey) and
// kept, as a RowKey the format brings is.
func (k *rowKeyer) lineKeys(items []ledger.LineItem, final bool) {
	k.sums = k.sums[:0]
	for i := range items {
		k.sums = append(k.sums, k.lineDigest(&items[i]))
	}
	k.ns = k.ns[:0]
	for _, sum := range k.sums {
		k.ns = append(k.ns, k.number(sum))
	}
	for i := range items {
		if items[i].RowKey == "" { // else the format's own (gpubill export's x_RowKey)
			items[i].RowKey = rowKeyText(k.sums[i], k.ns[i])
		}
		if id := items[i].LineKey; id != "" && !final {
			items[i].LineKey = k.lineKey(items[i].Provider, id)
		}
	}
}

// lineKey is the second dedupe key of a line whose mapper set its vendor
// line id (id, in LineItem.LineKey): "<provider>:<id>#<n>", n numbering the
// lines of the file with that id, as the hash key numbers identical rows.
// The number keeps two lines apart should a vendor repeat an id within one
// bill, while the same bill fetched and exported numbers them alike.
func (k *rowKeyer) lineKey(provider, id string) string {
	if k.ids == nil {
		k.ids = newRowKeyer(0)
	}
	ik := k.ids
	ik.buf = ik.buf[:0]
	ik.str(provider)
	ik.str(id)
	n := ik.number(ik.digest())
	return provider + ":" + id + "#" + strconv.FormatUint(uint64(n), 10)
}

// lineDigest hashes the fields of li's dedupe key (lineKeys).
func (k *rowKeyer) lineDigest(li *ledger.LineItem) [16]byte {
	k.buf = k.buf[:0]
	k.str("li")
	k.str(li.Provider)
	k.str(li.BillingAccountID)
	k.str(li.ResourceID)
	k.str(li.Kind)
	k.str(li.ChargeCategory)
	k.time(li.ChargePeriodStart)
	k.time(li.ChargePeriodEnd)
	k.time(li.UsageStart)
	k.time(li.UsageEnd)
	k.ndec(li.PricingQuantity)
	k.str(li.PricingUnit)
	k.ndec(li.ConsumedQuantity)
	k.str(li.ConsumedUnit)
	k.ndec(li.ListUnitPrice)
	k.ndec(li.ListCost)
	k.dec(li.BilledCost)
	k.ndec(li.VoucherPaid)
	k.ndec(li.CashPaid)
	k.str(li.Currency)
	k.str(li.Description)
	return k.digest()
}

// txKey is the dedupe key of a money-flow row.
func (k *rowKeyer) txKey(tx *ledger.Transaction) string {
	k.buf = k.buf[:0]
	k.str("tx")
	k.str(tx.Provider)
	k.str(tx.Account)
	k.time(tx.Time)
	k.str(tx.Type)
	k.dec(tx.Amount)
	k.str(tx.Currency)
	k.ndec(tx.Balance)
	k.str(tx.Reference)
	k.str(tx.Description)
	return k.finish()
}
