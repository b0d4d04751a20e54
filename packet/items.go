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
// totals, then 明细's column widths, then its rows) in a temporary file,
// gob-encoded in the order they were added. Its name is removed at once
// where the system allows it, so that nothing is left behind by a killed
// process.
type itemFile struct {
	f       *os.File
	removed bool
	w       *bufio.Writer
	enc     *gob.Encoder
}

func newItemFile() (*itemFile, error) {
	f, err := os.CreateTemp("", "gpubill-packet-*")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	return &itemFile{f: f, removed: os.Remove(f.Name()) == nil, w: w, enc: gob.NewEncoder(w)}, nil
}

func (s *itemFile) add(li *ledger.LineItem) error { return s.enc.Encode(li) }

// done ends the adding.
func (s *itemFile) done() error { return s.w.Flush() }

// each decodes the items in order and hands each to fn; the item is
// reused.
func (s *itemFile) each(fn func(*ledger.LineItem) error) error {
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
	err := s.f.Close()
	if !s.removed {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	return err
}
