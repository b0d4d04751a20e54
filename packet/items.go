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
type itemFile struct {
	mem     []ledger.LineItem // the items, until the file is made
	f       *os.File          // nil while the items are in mem
	removed bool
	w       *bufio.Writer
	enc     *gob.Encoder
}

// memItems is how many items an itemFile keeps in memory: a few MB. A
// variable, so that tests can take the file's way with a small month.
var memItems = 10000

func newItemFile() *itemFile { return &itemFile{} }

func (s *itemFile) add(li *ledger.LineItem) error {
	if s.f != nil {
		return s.enc.Encode(li)
	}
	if len(s.mem) < memItems {
		s.mem = append(s.mem, *li)
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
	for i := range s.mem {
		if err := s.enc.Encode(&s.mem[i]); err != nil {
			return err
		}
	}
	s.mem = nil
	return s.enc.Encode(li)
}

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
		for i := range s.mem {
			li = s.mem[i] // a copy: fn may set fields (Packet.line sets File)
			if err := fn(&li); err != nil {
				return err
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
	s.mem = nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if !s.removed {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	return err
}
