package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gpubill/gpubill/ingest"
)

// progressDelay is how long an import runs before its progress is shown
// (a quick import prints nothing); progressEvery is how often the line is
// redrawn.
const (
	progressDelay = time.Second
	progressEvery = 250 * time.Millisecond
)

// showProgress returns a Progress for an import and draws it on stderr
// while the import runs: one line, rewritten in place, with the rows read,
// the speed, the share of the file and the time left. Only on a terminal:
// when stderr is piped or redirected, p is nil and nothing is drawn. The
// returned function stops the drawing and clears the line.
func (a *app) showProgress() (p *ingest.Progress, stop func()) {
	if !isTerminal(a.stderr) {
		return nil, func() {}
	}
	p = &ingest.Progress{}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		drawn := false
		timer := time.NewTimer(progressDelay)
		defer timer.Stop()
		for {
			select {
			case <-done:
				if drawn {
					fmt.Fprint(a.stderr, "\r\x1b[K")
				}
				return
			case <-timer.C:
				fmt.Fprint(a.stderr, "\r\x1b[K"+progressLine(p.Snapshot(), a.lang))
				drawn = true
				timer.Reset(progressEvery)
			}
		}
	}()
	return p, func() {
		close(done)
		<-finished
	}
}

// progressLine is the progress of an import as one line of text.
func progressLine(s ingest.ProgressSnapshot, lang string) string {
	zh := lang == "zh"
	name := filepath.Base(s.File)
	rows := groupDigits(s.Rows)
	if s.Size <= 0 || s.Workbook || s.Elapsed <= 0 {
		if zh {
			return fmt.Sprintf("正在导入 %s：%s 行 · %s", name, rows, roundDuration(s.Elapsed))
		}
		return fmt.Sprintf("importing %s: %s rows · %s", name, rows, roundDuration(s.Elapsed))
	}
	if s.Read >= s.Size {
		if zh {
			return fmt.Sprintf("正在导入 %s：%s 行已读完，正在建索引并提交…", name, rows)
		}
		return fmt.Sprintf("importing %s: all %s rows read; building indexes and committing…", name, rows)
	}
	rate := float64(s.Read) / s.Elapsed.Seconds() // bytes a second
	pct := 100 * s.Read / s.Size
	left := "…"
	if rate > 0 {
		left = roundDuration(time.Duration(float64(s.Size-s.Read) / rate * float64(time.Second)))
	}
	if zh {
		return fmt.Sprintf("正在导入 %s：%s 行 · %.1f MB/s · %d%% · 约剩 %s", name, rows, rate/1e6, pct, left)
	}
	return fmt.Sprintf("importing %s: %s rows · %.1f MB/s · %d%% · about %s left", name, rows, rate/1e6, pct, left)
}

// roundDuration renders d to the second ("4s", "1m05s").
func roundDuration(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// groupDigits writes n with a comma every three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range s {
		if i > 0 && s[i-1] != '-' && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
