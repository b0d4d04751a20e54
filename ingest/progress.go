package ingest

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is how far an import has got, for a display to poll while it
// runs (gpubill import on a terminal). The importer updates it as it reads;
// Snapshot may be called from any goroutine. A nil *Progress is valid and
// records nothing.
type Progress struct {
	mu       sync.Mutex
	file     string
	size     int64 // bytes of the current file (uncompressed, for a ZIP member)
	started  time.Time
	workbook bool // the file is read whole before its rows: no ETA from bytes

	read atomic.Int64 // bytes of the current file read so far
	rows atomic.Int64 // records read, over all files
}

// ProgressSnapshot is one reading of a Progress.
type ProgressSnapshot struct {
	File     string
	Size     int64 // bytes of the current file; 0 when unknown
	Read     int64 // bytes of it read
	Rows     int64 // records read, all files
	Elapsed  time.Duration
	Workbook bool
}

// Snapshot reads p.
func (p *Progress) Snapshot() ProgressSnapshot {
	if p == nil {
		return ProgressSnapshot{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := ProgressSnapshot{File: p.file, Size: p.size, Read: p.read.Load(), Rows: p.rows.Load(), Workbook: p.workbook}
	if !p.started.IsZero() {
		s.Elapsed = time.Since(p.started)
	}
	return s
}

// start records that the import of file (size bytes) begins, and returns r
// counting the bytes read through it.
func (p *Progress) start(file string, size int64, r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	p.mu.Lock()
	p.file, p.size, p.started, p.workbook = file, size, time.Now(), false
	p.read.Store(0)
	p.mu.Unlock()
	return &progressReader{r: r, n: &p.read}
}

// setWorkbook marks the current file as a workbook.
func (p *Progress) setWorkbook() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.workbook = true
	p.mu.Unlock()
}

// addRows counts n records read (as Result.Read counts them).
func (p *Progress) addRows(n int) {
	if p != nil {
		p.rows.Add(int64(n))
	}
}

type progressReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *progressReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n.Add(int64(k))
	return k, err
}
