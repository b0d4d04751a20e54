package reports

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// browser finds a Chromium to render pages with. Without one the test is
// skipped, unless GPUBILL_BROWSER_TEST=1 (CI), where that is a failure.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "no chromium on PATH (install Debian's chromium: apt-get install chromium)"
	if os.Getenv("GPUBILL_BROWSER_TEST") == "1" {
		t.Fatal(msg + "; GPUBILL_BROWSER_TEST=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// runBrowser runs chromium headless with args and the page, within a time limit.
func runBrowser(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--disable-extensions", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// TestHTMLInBrowser renders the spend report of the sample ledger (with
// its charts; a chart of its own rows when the report draws none yet) in
// headless Chromium: the rendered DOM holds every chart's SVG and the
// totals, and a screenshot is a picture of the right size that is not
// blank.
func TestHTMLInBrowser(t *testing.T) {
	bin := browser(t)
	s := newSample(t)
	rep, err := Spend(context.Background(), s.db, SpendOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := WriteOptions{Format: FormatHTML, Lang: "zh"}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	doc := rep.document(opts)
	if len(doc.charts) == 0 {
		c := chart{key: "spend_by_provider_kind", title: "spend", kind: "bar", currency: "CNY"}
		ser := chartSeries{}
		for _, r := range rep.Rows {
			if r.Currency == "CNY" {
				c.labels = append(c.labels, r.Provider+"/"+r.Kind)
				ser.values = append(ser.values, r.BilledCost)
			}
		}
		c.series = []chartSeries{ser}
		doc.charts = append(doc.charts, c)
	}
	var page bytes.Buffer
	if err := writeHTML(&page, opts, doc); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spend.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(file)

	dom := string(runBrowser(t, bin, "--dump-dom", url))
	ids := map[string]bool{}
	for _, c := range doc.charts {
		hc, ok := layoutChart(&c, opts)
		if !ok {
			continue
		}
		id := "chart-" + hc.Key
		if ids[id] {
			id += "-" + strings.ToLower(hc.Currency)
		}
		ids[id] = true
		total := decimal.Zero
		for _, s := range c.series {
			for _, v := range s.values {
				total = total.Add(v)
			}
		}
		i := strings.Index(dom, `id="`+id+`"`)
		if i < 0 {
			t.Errorf("rendered DOM: no chart %s", id)
			continue
		}
		fig := dom[i:]
		if end := strings.Index(fig, "</figure>"); end > 0 {
			fig = fig[:end]
		}
		if !strings.Contains(fig, "<svg") || !(strings.Contains(fig, "<rect") || strings.Contains(fig, "<polyline")) {
			t.Errorf("rendered DOM: chart %s has no drawing", id)
		}
		if !strings.Contains(fig, `data-total="`+total.String()+`"`) && !strings.Contains(fig, `data-total="`+hc.Total+`"`) {
			t.Errorf("rendered DOM: chart %s has no data-total %s", id, hc.Total)
		}
	}
	if len(ids) == 0 {
		t.Fatal("no chart to look for")
	}
	if !strings.Contains(dom, `id="table-totals"`) {
		t.Error("rendered DOM: no totals table")
	}
	for _, tot := range rep.Totals {
		if want := FormatMoney(tot.BilledCost, tot.Currency, false); !strings.Contains(dom, ">"+want+"<") {
			t.Errorf("rendered DOM: no total %s %s", tot.Currency, want)
		}
	}

	shot := filepath.Join(t.TempDir(), "spend.png")
	runBrowser(t, bin, "--window-size=1000,1400", "--screenshot="+shot, url)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1000 || b.Dy() != 1400 {
		t.Errorf("screenshot: got %dx%d want 1000x1400", b.Dx(), b.Dy())
	}
	if n := distinctColours(img, 64); n < 8 {
		t.Errorf("screenshot: %d distinct colours, want a page with text and coloured charts (≥ 8)", n)
	}
}

// distinctColours counts the colours of img, up to limit.
func distinctColours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}
