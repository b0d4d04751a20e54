package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
)

// gzip-compressed bills. AWS delivers its Cost and Usage Reports as
// .csv.gz, and other exports are often gzipped by hand: a file whose
// content starts with the gzip magic number is decompressed as it is read
// and opened as the text it holds (openSource), so memory stays flat
// however large it unpacks to. A gzip stream holding another gzip stream,
// a workbook or a Parquet file is refused.

// magicGzip starts a gzip stream (RFC 1952: ID1 ID2 and the deflate method).
var magicGzip = []byte{0x1f, 0x8b, 0x08}

// openGzip opens the gzip stream br reads as the bill it holds.
func openGzip(path string, br *bufio.Reader) (*source, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, &InputError{File: path, Msg: "a damaged gzip file", Err: err}
	}
	inner := bufio.NewReaderSize(gzipErrors{path: path, r: zr}, sniffSize)
	head, err := inner.Peek(8)
	if err != nil && err != io.EOF {
		return nil, err // gzipErrors made it an *InputError
	}
	switch {
	case bytes.HasPrefix(head, magicGzip):
		return nil, &InputError{File: path, Msg: "a gzip file inside a gzip file: decompress it once and import what it holds"}
	case bytes.HasPrefix(head, magicZip), bytes.HasPrefix(head, magicParquet):
		// A workbook or Parquet file would be read whole into memory or
		// spooled to disk, however large it unpacks to; no export ships
		// them gzipped.
		return nil, &InputError{File: path, Msg: "a gzip file holding a ZIP, XLSX or Parquet file: decompress it and import what it holds"}
	}
	return openSource(path, inner)
}

// gzipErrors turns the decompressor's errors into InputErrors naming the
// file (a truncated download, a corrupt block).
type gzipErrors struct {
	path string
	r    io.Reader
}

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		return n, &InputError{File: g.path, Msg: "a damaged gzip file", Err: err}
	}
	return n, err
}
