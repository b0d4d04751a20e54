package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// AutoDL's saved web-API JSON (FORMATS.md, AutoDL): the responses of
// POST /api/v1/bill/balance_statement/list (收支明细: asset in 厘) and
// POST /api/v1/order/list (订单: deal_price in 厘) that the console pages
// load, saved by the user from the browser. The field names come from
// third-party userscripts, not from AutoDL: medium confidence.
//
// A JSON source is one table whose "header" is the keys of the first item
// (stored in the import record, shown by `gpubill formats check`) and whose
// records are the items, one by one: the item list is streamed with
// encoding/json's token API, so only one item is in memory at a time. A
// row's raw is a one-cell array holding the item's compact JSON (every field,
// known or not); its source_row is the 1-based index of the item in the
// list. Numbers are read as text (json.Number) and 厘 become yuan by a
// decimal shift: 1880 → 1.880, never through a float.

func init() {
	registerFormat(autodlBalanceJSONFormat, 65)
	registerFormat(autodlOrderJSONFormat, 66)
}

var autodlBalanceJSONFormat = &Format{
	ID:         "autodl-balance-json",
	Version:    "1",
	NameZH:     "AutoDL 收支明细（保存的网页接口 JSON）",
	NameEN:     "AutoDL balance statement (saved web-API JSON)",
	Confidence: ConfidenceParser,
	DetectZH: "JSON 文件（首个非空字符为 { 或 [），列表项含 product_uuid 与 asset（单位：厘 = 元/1000）：" +
		"POST /api/v1/bill/balance_statement/list 的响应。字段名取自第三方用户脚本，可信度中等（非官方文档）",
	DetectEN: "a JSON file (first non-space character { or [) whose list items hold product_uuid and asset (in 厘 = ¥/1000): " +
		"the response of POST /api/v1/bill/balance_statement/list. Field names come from third-party userscripts: " +
		"medium confidence, not documented by AutoDL",
	DedupeKey: "hash of provider, time (created_at), type, amount, balance, reference (uuid/order id, else product_uuid), " +
		"description + occurrence number in the file",
	Target:  TargetTransactions,
	Columns: autodlBalanceColumns,
	match:   jsonOnly,
	txs:     autodlBalanceTxs,
}

var autodlOrderJSONFormat = &Format{
	ID:         "autodl-order-json",
	Version:    "1",
	NameZH:     "AutoDL 订单列表（保存的网页接口 JSON）",
	NameEN:     "AutoDL order list (saved web-API JSON)",
	Confidence: ConfidenceParser,
	DetectZH: "JSON 文件（首个非空字符为 { 或 [），列表项含 product_uuid 与 deal_price（单位：厘）：" +
		"POST /api/v1/order/list 的响应。字段名取自第三方用户脚本，可信度中等（非官方文档）",
	DetectEN: "a JSON file (first non-space character { or [) whose list items hold product_uuid and deal_price (in 厘): " +
		"the response of POST /api/v1/order/list. Field names come from third-party userscripts: " +
		"medium confidence, not documented by AutoDL",
	DedupeKey: "hash of provider, resource (product_uuid), kind, charge period, billed cost, description " +
		"+ occurrence number in the file",
	Target:  TargetLineItems,
	Columns: autodlOrderColumns,
	match:   jsonOnly,
	lines:   autodlOrderLines,
}

// jsonOnly keeps the JSON formats out of header detection in CSV and XLSX
// tables: a JSON table binds its format itself (jsonTable.detect).
func jsonOnly(*binding) bool { return false }

// The columns are JSON keys: the first spelling is the key FORMATS.md (or a
// userscript) names; the others are tolerated variants. Key matching ignores
// case (normCol).
var autodlBalanceColumns = []Column{
	{Field: "product_uuid", Headers: []string{"product_uuid", "productUuid"}, Required: true},
	{Field: "asset", Headers: []string{"asset"}, Required: true},
	{Field: "created_at", Headers: []string{"created_at", "createdAt", "create_time", "created_time"}},
	{Field: "type", Headers: []string{"type", "bill_type", "business_type", "trade_type", "statement_type", "asset_type"}},
	{Field: "charge_type", Headers: []string{"charge_type", "chargeType", "charge_type_name"}},
	{Field: "balance", Headers: []string{"balance", "balance_after"}},
	{Field: "uuid", Headers: []string{"uuid", "order_uuid", "serial_number", "id"}},
	{Field: "detail", Headers: []string{"detail", "description", "remark", "note", "memo"}},
}

var autodlOrderColumns = []Column{
	{Field: "product_uuid", Headers: []string{"product_uuid", "productUuid"}, Required: true},
	{Field: "deal_price", Headers: []string{"deal_price", "dealPrice"}, Required: true},
	{Field: "created_at", Headers: []string{"created_at", "createdAt", "create_time", "created_time"}},
	{Field: "order_type", Headers: []string{"order_type", "orderType"}},
	{Field: "charge_type", Headers: []string{"charge_type", "chargeType"}},
	{Field: "product_type", Headers: []string{"product_type", "business_type", "type"}},
	{Field: "status", Headers: []string{"status", "order_status"}},
	{Field: "start", Headers: []string{"start_at", "started_at", "start_time", "begin_at"}},
	{Field: "end", Headers: []string{"end_at", "ended_at", "end_time", "expire_at", "expired_at", "stop_at"}},
	{Field: "duration", Headers: []string{"duration", "duration_num"}},
	{Field: "gpu_type", Headers: []string{"gpu_type", "gpu_name", "gpu_model"}},
	{Field: "gpu_num", Headers: []string{"gpu_num", "gpu_count", "req_gpu_amount"}},
	{Field: "region", Headers: []string{"region_name", "region", "region_sign"}},
	{Field: "instance_name", Headers: []string{"instance_name"}},
	{Field: "uuid", Headers: []string{"uuid", "order_uuid", "order_id", "id"}, RawOnly: true},
	{Field: "detail", Headers: []string{"detail", "description", "remark", "note", "memo"}},
}

// looksJSON reports whether decoded text starts (after white space) with {
// or [: such a file is read as JSON, never as delimited text.
func looksJSON(sample []byte) bool {
	s := bytes.TrimLeft(sample, " \t\r\n\ufeff")
	return len(s) > 0 && (s[0] == '{' || s[0] == '[')
}

// jsonItem is one item of the list.
type jsonItem struct {
	index  int               // 1-based position in the list
	offset int64             // byte offset of its first byte in the file
	raw    string            // compact JSON
	keys   []string          // keys as written, in order
	fields map[string]string // normCol(key) → value as text ("" for null)
}

// get returns the first non-empty value among the spellings of col, with
// the key it was found under.
func (it *jsonItem) get(col *Column) (key, val string) {
	for _, h := range col.Headers {
		if v, ok := it.fields[normCol(h)]; ok && v != "" {
			return h, v
		}
	}
	return col.Headers[0], ""
}

// jsonTable streams the items of an AutoDL list response.
type jsonTable struct {
	path  string
	base  int64 // bytes the decoder does not see (a UTF-8 BOM), added to offsets
	dec   *json.Decoder
	inner int       // objects that enclose the list (closed after it)
	state int       // 0 before the list, 1 in it, 2 after it
	first *jsonItem // read by detect, returned by the first next
	cur   *jsonItem
	n     int
	code  string // the response's "code", when seen before the list
	msg   string
	guard int // top-level "event" and "started" keys seen: a gpubill guard marker line
	rec   []string
	// The pagination the response states, 0 when it does not: the console
	// loads a month page by page, and a saved response holds one page.
	pageIndex, maxPage, total int
}

func newJSONTable(path string, r io.Reader, base int64) *jsonTable {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return &jsonTable{path: path, base: base, dec: dec}
}

func (t *jsonTable) sheet() string { return "" }

// line is the current item's index (the header, before any item, is 0).
func (t *jsonTable) line(int) int {
	if t.cur == nil {
		return 0
	}
	return t.cur.index
}

// errf makes an InputError about the whole file.
func (t *jsonTable) errf(format string, a ...any) error {
	return &InputError{File: t.path, Msg: fmt.Sprintf(format, a...)}
}

// syntax turns a decoder error into an InputError with the byte offset.
func (t *jsonTable) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return t.errf("malformed JSON at byte offset %d: %s", t.errOffset(), se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return t.errf("malformed JSON: the file ends early, at byte offset %d (truncated?)", t.base+t.dec.InputOffset())
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	return &InputError{File: t.path, Msg: fmt.Sprintf("cannot read JSON at byte offset %d", t.base+t.dec.InputOffset()), Err: err}
}

// errOffset is the 0-based byte offset in the file of a syntax error the
// decoder just returned. SyntaxError.Offset cannot say it: a Decoder counts
// only the bytes of the values it decoded, not those its token reader
// consumed. After an error the decoder stands at the start of the failing
// value (or at the offending delimiter), and the bytes from there up to the
// error are still buffered: a fresh scan of them finds the error again,
// from a known start.
func (t *jsonTable) errOffset() int64 {
	pos := t.dec.InputOffset()
	var rm json.RawMessage
	var se *json.SyntaxError
	if err := json.NewDecoder(t.dec.Buffered()).Decode(&rm); errors.As(err, &se) && se.Offset > 0 {
		pos += se.Offset - 1
	}
	return t.base + pos
}

func (t *jsonTable) token() (json.Token, error) {
	tok, err := t.dec.Token()
	if err != nil {
		return nil, t.syntax(err)
	}
	return tok, nil
}

// skipValue consumes one value (a scalar or a whole container) token by
// token, without holding it.
func (t *jsonTable) skipValue() error {
	tok, err := t.token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := t.token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// listKeys are the keys under which a response may hold its item list:
// {"data":{"list":[…]}}, {"data":[…]}, {"list":[…]} ….
var listKeys = map[string]bool{"data": true, "list": true, "items": true, "records": true, "rows": true, "result": true}

// seek advances the decoder to the first item of the list; found is false
// when the JSON holds no list where one is expected (it was read to its end).
func (t *jsonTable) seek() (found bool, err error) {
	tok, err := t.token()
	if err != nil {
		return false, err
	}
	switch tok {
	case json.Delim('['):
		return true, nil
	case json.Delim('{'):
		found, err := t.seekObject(0)
		if err != nil || found || t.guard == 2 {
			return found, err // a guard marker has more lines: detect names it
		}
		return false, t.end()
	}
	return false, nil
}

// seekObject looks for the list among the members of an object whose { was
// read, at nesting level (0 = the top-level object). When it returns found,
// the list's [ was read and t.inner counts the objects still open.
func (t *jsonTable) seekObject(level int) (bool, error) {
	for t.dec.More() {
		tok, err := t.token()
		if err != nil {
			return false, err
		}
		key, _ := tok.(string)
		lk := strings.ToLower(key)
		switch {
		case listKeys[lk] && level < 3:
			tok, err := t.token()
			if err != nil {
				return false, err
			}
			switch tok {
			case json.Delim('['):
				t.inner = level + 1
				return true, nil
			case json.Delim('{'):
				found, err := t.seekObject(level + 1)
				if err != nil || found {
					return found, err
				}
			}
		case (lk == "code" || lk == "msg" || lk == "message") && level == 0:
			tok, err := t.token()
			if err != nil {
				return false, err
			}
			if d, ok := tok.(json.Delim); ok { // an object or array: skip the rest of it
				if d == '{' || d == '[' {
					if err := t.skipRest(); err != nil {
						return false, err
					}
				}
				continue
			}
			s := fmt.Sprint(tok)
			if lk == "code" {
				t.code = s
			} else {
				t.msg = s
			}
		default:
			if level == 0 && (lk == "event" || lk == "started") {
				t.guard++
			}
			if err := t.pageKey(lk); err != nil {
				return false, err
			}
		}
	}
	_, err := t.token() // the closing }
	return false, err
}

// pageKey reads the value of key lk: a pagination number it keeps (page
// index, page count, item total), anything else it skips.
func (t *jsonTable) pageKey(lk string) error {
	var dst *int
	switch lk {
	case "page_index", "page", "current_page", "page_no", "pageindex":
		dst = &t.pageIndex
	case "max_page", "total_page", "total_pages", "page_count", "pages":
		dst = &t.maxPage
	case "result_total", "total_count":
		dst = &t.total
	default:
		return t.skipValue()
	}
	tok, err := t.token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok {
		if d == '{' || d == '[' {
			return t.skipRest()
		}
		return nil
	}
	if n, ok := tok.(json.Number); ok {
		if v, err := strconv.Atoi(n.String()); err == nil && v > 0 {
			*dst = v
		}
	}
	return nil
}

// warnings tells, once the list is read, whether the saved response is one
// page of several, or holds fewer items than it says the list has.
func (t *jsonTable) warnings() []Warning {
	switch {
	case t.maxPage > 1:
		page := "?"
		if t.pageIndex > 0 {
			page = strconv.Itoa(t.pageIndex)
		}
		return []Warning{{
			ZH: fmt.Sprintf("这是 %d 页中的第 %s 页：其余页没有保存，本月数据不完整。请在控制台逐页保存（或调大 page_size）后一并导入。", t.maxPage, page),
			EN: fmt.Sprintf("this is page %s of %d: the other pages were not saved, so the month is incomplete; save every page in the console (or raise page_size) and import them too", page, t.maxPage),
		}}
	case t.total > t.n:
		return []Warning{{
			ZH: fmt.Sprintf("响应称共有 %d 条，文件中只有 %d 条：其余记录没有保存，本月数据可能不完整。", t.total, t.n),
			EN: fmt.Sprintf("the response says the list has %d items but the file holds %d: the rest were not saved, and the month may be incomplete", t.total, t.n),
		}}
	}
	return nil
}

// skipRest consumes the rest of a container whose opening token was read.
func (t *jsonTable) skipRest() error {
	for depth := 1; depth > 0; {
		tok, err := t.token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// end checks that nothing but white space follows the JSON value.
func (t *jsonTable) end() error {
	if _, err := t.dec.Token(); err != io.EOF {
		if err != nil {
			return t.syntax(err)
		}
		return t.errf("malformed JSON: more data after the end of the JSON value, at byte offset %d", t.base+t.dec.InputOffset())
	}
	return nil
}

// item reads the next list item (state 1), or io.EOF after the list, whose
// enclosing objects it reads to the end of the file.
func (t *jsonTable) item() (*jsonItem, error) {
	if t.state == 2 {
		return nil, io.EOF
	}
	if !t.dec.More() {
		t.state = 2
		if _, err := t.token(); err != nil { // the closing ]
			return nil, err
		}
		for ; t.inner > 0; t.inner-- {
			for t.dec.More() {
				tok, err := t.token() // key
				if err != nil {
					return nil, err
				}
				key, _ := tok.(string)
				if err := t.pageKey(strings.ToLower(key)); err != nil {
					return nil, err
				}
			}
			if _, err := t.token(); err != nil { // }
				return nil, err
			}
		}
		if err := t.end(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	var rm json.RawMessage
	if err := t.dec.Decode(&rm); err != nil {
		return nil, t.syntax(err)
	}
	t.n++
	it := &jsonItem{index: t.n, offset: t.base + t.dec.InputOffset() - int64(len(rm))}
	if len(rm) == 0 || rm[0] != '{' {
		return nil, t.errf("item %d (byte offset %d) is not a JSON object: %s", it.index, it.offset, clip(string(rm), 40))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, rm); err != nil {
		return nil, t.syntax(err)
	}
	it.raw = buf.String()
	it.fields = map[string]string{}
	d := json.NewDecoder(bytes.NewReader(rm))
	d.UseNumber()
	if _, err := d.Token(); err != nil { // {
		return nil, t.syntax(err)
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, t.syntax(err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, t.syntax(err)
		}
		it.keys = append(it.keys, key)
		if n := normCol(key); n != "" {
			if _, dup := it.fields[n]; !dup {
				it.fields[n] = jsonCell(v)
			}
		}
	}
	return it, nil
}

// jsonCell renders a value as a cell: a string's text (trimmed), a number
// as written, true/false, "" for null, and an object or array as compact
// JSON.
func jsonCell(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return ""
		}
		return trimCell(s)
	case 'n':
		return ""
	case '{', '[':
		var buf bytes.Buffer
		if json.Compact(&buf, v) != nil {
			return string(v)
		}
		return buf.String()
	}
	return string(v)
}

// clip shortens s to n runes for a message.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// detect finds the item list, reads its first item and binds the AutoDL
// format its keys carry. A JSON file that is not such a list is refused with
// an *InputError saying why.
func (t *jsonTable) detect() (*binding, error) {
	found, err := t.seek()
	if err != nil {
		return nil, err
	}
	if !found {
		if t.code != "" && !strings.EqualFold(t.code, "success") {
			return nil, t.errf("an AutoDL API error response (code %q, msg %q), not a list: save the response of a successful request", t.code, t.msg)
		}
		if t.guard == 2 {
			return nil, t.errf("a gpubill guard marker, not a bill: it is not imported; give it to gpubill audit --guard %s", t.path)
		}
		return nil, t.errf("a JSON file, but not an AutoDL balance_statement or order list: no item list " +
			"(a top-level [...], or data / data.list) found")
	}
	t.state = 1
	first, err := t.item()
	if err == io.EOF {
		return nil, t.errf("an empty JSON item list: nothing to import (which AutoDL list it is cannot be told)")
	}
	if err != nil {
		return nil, err
	}
	var best *binding
	for _, f := range []*Format{autodlBalanceJSONFormat, autodlOrderJSONFormat} {
		b := bind(f, first.keys)
		ok := true
		for ci, c := range f.Columns {
			if c.Required && b.pos[ci] < 0 {
				ok = false
			}
		}
		if ok && (best == nil || b.matched > best.matched) {
			best = b
		}
	}
	if best == nil {
		return nil, t.errf("a JSON file, but not an AutoDL balance_statement or order list: item 1 has the keys %s; "+
			"AutoDL's items hold product_uuid with asset (收支明细) or with deal_price (订单)", clip(strings.Join(first.keys, ", "), 120))
	}
	t.first = first
	return best, nil
}

// next returns the next item as a one-cell record (its compact JSON); the
// item itself is t.cur.
func (t *jsonTable) next() ([]string, error) {
	var it *jsonItem
	if t.first != nil {
		it, t.first = t.first, nil
	} else {
		var err error
		if it, err = t.item(); err != nil {
			return nil, err
		}
	}
	t.cur = it
	t.rec = append(t.rec[:0], it.raw)
	return t.rec, nil
}

// jsonRow gives mappers the current item and its error messages.
type jsonRow struct {
	env *mapEnv
	it  *jsonItem
	f   *Format
}

func newJSONRow(c *rowCtx, f *Format) (*jsonRow, error) {
	jt, ok := c.t.(*jsonTable)
	if !ok || jt.cur == nil {
		return nil, &InputError{File: c.env.path, Msg: "internal: an AutoDL JSON format on a table that is not JSON"}
	}
	return &jsonRow{env: c.env, it: jt.cur, f: f}, nil
}

func (r *jsonRow) col(field string) *Column {
	for i := range r.f.Columns {
		if r.f.Columns[i].Field == field {
			return &r.f.Columns[i]
		}
	}
	panic("autodl json: unknown field " + field) // a programming error, never input
}

// get returns the value of field ("" when absent or null) and its key.
func (r *jsonRow) get(field string) (key, val string) {
	return r.it.get(r.col(field))
}

func (r *jsonRow) errf(key, format string, a ...any) error {
	return &InputError{File: r.env.path, Msg: fmt.Sprintf("item %d (byte offset %d): field %s: %s",
		r.it.index, r.it.offset, key, fmt.Sprintf(format, a...))}
}

// milli reads an amount in 厘 (¥/1000) as yuan, exactly; required fields
// must be present.
func (r *jsonRow) milli(field string, required bool) (decimal.NullDecimal, error) {
	key, s := r.get(field)
	if s == "" {
		if required {
			return decimal.NullDecimal{}, r.errf(key, "required amount is missing")
		}
		return decimal.NullDecimal{}, nil
	}
	d, err := milliToYuan(s)
	if err != nil {
		return d, r.errf(key, "%v", err)
	}
	if required && !d.Valid {
		return d, r.errf(key, "required amount is empty")
	}
	return d, nil
}

// milliToYuan turns an amount in 厘 into yuan: 1880 → 1.880.
func milliToYuan(s string) (decimal.NullDecimal, error) {
	d, err := ParseAmount(s)
	if err != nil || !d.Valid {
		return d, err
	}
	d.Decimal = d.Decimal.Shift(-3)
	return d, nil
}

// time reads a time field: ISO 8601 or any ParseTime form (naive = --tz),
// or Unix seconds / milliseconds.
func (r *jsonRow) time(field string, required bool) (time.Time, error) {
	key, s := r.get(field)
	if s == "" || isUnknownText(s) {
		if required {
			return time.Time{}, r.errf(key, "required time is missing")
		}
		return time.Time{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && (len(s) == 10 || len(s) == 13) {
		if len(s) == 13 {
			return time.UnixMilli(n).In(r.env.tz), nil
		}
		return time.Unix(n, 0).In(r.env.tz), nil
	}
	t, err := ParseTime(s, r.env.tz)
	if err != nil {
		return t, r.errf(key, "%v", err)
	}
	return t, nil
}

// hasAny reports whether text (lower-cased) contains one of the words.
func hasAny(text string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// autodlTxType classifies the type texts of a balance item (English API
// codes or Chinese names); ok is false when none is recognised.
func autodlTxType(texts ...string) (string, bool) {
	for _, s := range texts {
		t := strings.ToLower(s)
		switch {
		case t == "":
			continue
		case hasAny(t, "voucher", "coupon", "gift", "bonus", "代金券", "优惠券", "赠送", "抵扣券"):
			return ledger.TxVoucher, true
		case hasAny(t, "recharge", "top_up", "topup", "top-up", "deposit", "充值"):
			return ledger.TxTopup, true
		case hasAny(t, "refund", "退款", "退费", "退还", "返还"):
			return ledger.TxRefund, true
		case hasAny(t, "withdraw", "提现"):
			return ledger.TxWithdrawal, true
		case hasAny(t, "unfreeze", "解冻"):
			return ledger.TxUnfreeze, true
		case hasAny(t, "freeze", "冻结", "预扣"):
			return ledger.TxFreeze, true
		case hasAny(t, "consum", "deduct", "charge", "expense", "payg", "pay", "renew", "daily", "weekly", "monthly",
			"消费", "扣费", "支出", "计费", "续费", "包日", "包周", "包月", "按量"):
			return ledger.TxCharge, true
		}
	}
	return "", false
}

// autodlBalanceTxs maps balance_statement items to money-flow rows.
func autodlBalanceTxs(b *binding, env *mapEnv) (txMapper, error) {
	f := b.format
	return func(c *rowCtx, tx *ledger.Transaction) (bool, error) {
		r, err := newJSONRow(c, f)
		if err != nil {
			return false, err
		}
		tx.Provider = "autodl"
		tx.Currency = "CNY"
		if tx.Time, err = r.time("created_at", true); err != nil {
			return false, err
		}
		amt, err := r.milli("asset", true)
		if err != nil {
			return false, err
		}
		_, typ := r.get("type")
		_, chg := r.get("charge_type")
		var ok bool
		if tx.Type, ok = autodlTxType(typ, chg); !ok {
			// Unknown type: money out is a charge, money in a refund (as
			// the console-copy profiles decide).
			tx.Type = ledger.TxCharge
			if amt.Decimal.IsPositive() {
				tx.Type = ledger.TxRefund
			}
		}
		tx.Amount = amt.Decimal.Abs()
		if tx.Balance, err = r.milli("balance", false); err != nil {
			return false, err
		}
		_, ref := r.get("uuid")
		if ref == "" {
			_, ref = r.get("product_uuid")
		}
		tx.Reference = ref
		_, detail := r.get("detail")
		tx.Description = joinDistinct(" · ", typ, chg, detail)
		tx.Raw = []string{r.it.raw}
		return false, nil
	}, nil
}

// joinDistinct joins the non-empty texts, each once.
func joinDistinct(sep string, texts ...string) string {
	var out []string
	for _, s := range texts {
		if s != "" && !contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}

// autodlPricing is the pricing model an order's type texts name: 包日/包周/
// 包月 (daily/weekly/monthly) are packages, 竞价 spot, anything else on
// demand. unit is the package period (0 for on demand and spot).
func autodlPricing(texts ...string) (pricing string, days, months int) {
	for _, s := range texts {
		t := strings.ToLower(s)
		switch {
		case hasAny(t, "包日", "包天", "daily") || t == "day":
			return ledger.PricingPackage, 1, 0
		case hasAny(t, "包周", "weekly") || t == "week":
			return ledger.PricingPackage, 7, 0
		case hasAny(t, "包月", "monthly") || t == "month":
			return ledger.PricingPackage, 0, 1
		case hasAny(t, "包年", "yearly", "annual") || t == "year":
			return ledger.PricingPackage, 0, 12
		case hasAny(t, "竞价", "spot"):
			return ledger.PricingSpot, 0, 0
		}
	}
	return ledger.PricingOnDemand, 0, 0
}

// autodlKind classifies an order by its texts (order_type, product type,
// description); anything unrecognised is "other".
func autodlKind(texts ...string) string {
	t := strings.ToLower(strings.Join(texts, " "))
	switch {
	case hasAny(t, "代金券", "优惠券", "voucher", "coupon"):
		return ledger.KindCredit
	case hasAny(t, "退款", "退费", "refund", "调账"):
		return ledger.KindAdjustment
	case hasAny(t, "数据盘", "扩容", "data_disk", "datadisk", "disk", "expand", "文件存储", "autodl-fs", "file_storage", "storage", "网盘", "存储"):
		return ledger.KindStorage
	case hasAny(t, "镜像", "image"):
		return ledger.KindImage
	case hasAny(t, "关机保留", "占用费"):
		return ledger.KindSeat
	case hasAny(t, "快照", "snapshot"):
		return ledger.KindSnapshot
	case hasAny(t, "流量", "带宽", "traffic", "bandwidth"):
		return ledger.KindNetwork
	case hasAny(t, "无卡", "no_gpu", "nogpu", "gpu", "instance", "container", "实例", "容器", "算力", "开机", "续费", "renew",
		"包日", "包天", "包周", "包月", "包年", "按量", "payg", "daily", "weekly", "monthly", "yearly", "spot", "竞价"):
		return ledger.KindCompute
	}
	return ledger.KindOther
}

// autodlCancelled reports an order status that carries no charge
// (cancelled, unpaid, failed): such items are counted as skipped.
func autodlCancelled(status string) bool {
	return hasAny(strings.ToLower(status), "cancel", "unpaid", "wait_pay", "waiting_pay", "fail", "取消", "未支付", "待支付", "失败")
}

// autodlOrderLines maps order-list items to line items.
func autodlOrderLines(b *binding, env *mapEnv) (lineMapper, error) {
	f := b.format
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		r, err := newJSONRow(c, f)
		if err != nil {
			return false, err
		}
		if _, st := r.get("status"); autodlCancelled(st) {
			return true, nil
		}
		li.Provider = "autodl"
		li.Currency = "CNY"
		_, li.ResourceID = r.get("product_uuid")
		_, li.ResourceName = r.get("instance_name")
		_, li.Region = r.get("region")
		_, li.GPUModel = r.get("gpu_type")
		if k, s := r.get("gpu_num"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > 1024 {
				return false, r.errf(k, "%q is not a GPU count", s)
			}
			li.GPUCount = n
		}
		billed, err := r.milli("deal_price", true)
		if err != nil {
			return false, err
		}
		li.BilledCost = billed.Decimal
		_, orderType := r.get("order_type")
		_, chargeType := r.get("charge_type")
		_, productType := r.get("product_type")
		_, detail := r.get("detail")
		var days, months int
		li.PricingModel, days, months = autodlPricing(orderType, chargeType)
		li.Kind = autodlKind(orderType, chargeType, productType, detail)
		li.ChargeCategory = templateCategory(li.Kind, li.PricingModel)
		created, err := r.time("created_at", true)
		if err != nil {
			return false, err
		}
		if li.ChargePeriodStart, err = r.time("start", false); err != nil {
			return false, err
		}
		if li.ChargePeriodStart.IsZero() {
			li.ChargePeriodStart = created
		}
		endKey, _ := r.get("end")
		if li.ChargePeriodEnd, err = r.time("end", false); err != nil {
			return false, err
		}
		if li.ChargePeriodEnd.IsZero() {
			li.ChargePeriodEnd = li.ChargePeriodStart
			// A package order's duration counts its periods (2 × 包日 = 2 days).
			if k, s := r.get("duration"); s != "" && (days > 0 || months > 0) {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 || n > 1000 {
					return false, r.errf(k, "%q is not a number of package periods", s)
				}
				li.ChargePeriodEnd = li.ChargePeriodStart.AddDate(0, months*n, days*n)
			}
		}
		if li.ChargePeriodEnd.Before(li.ChargePeriodStart) {
			return false, r.errf(endKey, "the end is before the start")
		}
		li.Description = joinDistinct(" · ", orderType, chargeType, productType, detail)
		li.BillingPeriod = env.month(li.ChargePeriodStart)
		li.Raw = []string{r.it.raw}
		return false, nil
	}, nil
}
