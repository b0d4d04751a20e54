package packet

import (
	"bufio"
	"encoding/gob"
	"errors"
	"io"
	"os"

	"github.com/gpubill/gpubill/ledger"
)

// itemFile keeps the line items of a packet between its passes (the
// totals, then 明细's rows), in the order they were added. Up to
// memItems items stay in memory, which spares a month of ordinary size
// the encoding and decoding; past that they all go to a temporary file,
// gob-encoded, so that a packet's memory does not grow with the month.
// The file's name is removed at once where the system allows it, so that
// nothing is left behind by a killed process.
//
// In memory the items are kept in chunks of chunkItems, each made at its
// full size: one growing slice copied and cleared its ~1 KB items over and
// over, a third of a typical month's packet time.
type itemFile struct {
	mem     [][]ledger.LineItem // the items, until the file is made
	n       int                 // items in mem
	f       *os.File            // nil while the items are in mem
	removed bool
	w       *bufio.Writer
	enc     *gob.Encoder
}

// memItems is how many items an itemFile keeps in memory: a few MB. A
// variable, so that tests can take the file's way with a small month.
var memItems = 10000

// chunkItems is how many items a chunk of itemFile.mem holds.
const chunkItems = 512

func newItemFile() *itemFile { return &itemFile{} }

func (s *itemFile) add(li *ledger.LineItem) error {
	if s.f != nil {
		return s.enc.Encode(li)
	}
	if s.n < memItems {
		if len(s.mem) == 0 || len(s.mem[len(s.mem)-1]) == chunkItems {
			s.mem = append(s.mem, make([]ledger.LineItem, 0, min(chunkItems, memItems-s.n)))
		}
		c := &s.mem[len(s.mem)-1]
		*c = append(*c, *li)
		s.n++
		return nil
	}
	// Past memItems: every item, those in memory first, goes to the file.
	f, err := os.CreateTemp("", "gpubill-packet-*")
	if err != nil {
		return err
	}
	s.f, s.removed = f, os.Remove(f.Name()) == nil
	s.w = bufio.NewWriterSize(f, 1<<16)
	s.enc = gob.NewEncoder(s.w)
	for _, c := range s.mem {
		for i := range c {
			if err := s.enc.Encode(&c[i]); err != nil {
				return err
			}
		}
	}
	s.mem, s.n = nil, 0
	return s.enc.Encode(li)
}

// at is a copy of item i, while the items are in memory (i < n).
func (s *itemFile) at(i int) ledger.LineItem { return s.mem[i/chunkItems][i%chunkItems] }

// done ends the adding.
func (s *itemFile) done() error {
	if s.f == nil {
		return nil
	}
	return s.w.Flush()
}

// each hands fn the items in order; the item is reused.
func (s *itemFile) each(fn func(*ledger.LineItem) error) error {
	if s.f == nil {
		var li ledger.LineItem
		for _, c := range s.mem {
			for i := range c {
				li = c[i] // a copy: fn may set fields (Packet.line sets File)
				if err := fn(&li); err != nil {
					return err
				}
			}
		}
		return nil
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(s.f, 0, 1<<62), 1<<16))
	var li ledger.LineItem
	for {
		li = ledger.LineItem{} // gob leaves the fields a value omits as they were
		if err := dec.Decode(&li); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := fn(&li); err != nil {
			return err
		}
	}
}

func (s *itemFile) close() error {
	s.mem, s.n = nil, 0
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if !s.removed {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	return err
}
