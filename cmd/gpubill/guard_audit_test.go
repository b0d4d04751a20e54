package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/guard"
)

// A marker written by guard's own code, on a fake clock with a fake
// nvidia-smi (busy until 02:10, then idle) and a fake shutdown: guard
// warns at 02:40 and runs the shutdown at 02:50. The bill of the same
// instance goes on until 09:00: audit --guard claims the cost after 02:50
// and cites the idle start and the marker line; without --guard the
// finding is the plain forgotten_instance one (the cost beyond 8 h).
func TestAuditGuardMarker(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fakes are shell scripts")
	}
	dir := t.TempDir()
	cst := time.FixedZone("CST", 8*3600)
	start := time.Date(2026, 11, 20, 20, 0, 0, 0, cst)
	busyUntil := time.Date(2026, 11, 21, 2, 10, 0, 0, cst)
	now := start
	write := func(name, text string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	// The fake nvidia-smi prints what the file util holds; the test
	// rewrites it as the fake clock passes 02:10.
	write("nvidia-smi", "#!/bin/sh\ncat \"$(dirname \"$0\")/util\"\n", 0o755)
	write("shutdown", "#!/bin/sh\necho \"shutdown $*\" >> \"$(dirname \"$0\")/shutdown.log\"\n", 0o755)
	write("util", "97\n99\n", 0o644)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	marker := filepath.Join(dir, "guard.jsonl")
	_, err := guard.Run(context.Background(), guard.Options{Idle: 30 * time.Minute, Interval: 5 * time.Minute,
		Grace: 10 * time.Minute, IdleBelow: 5, Then: "shutdown -h now", NvidiaSMI: filepath.Join(dir, "nvidia-smi"),
		Marker: marker, Host: "autodl-container-7", Provider: "autodl", Instance: "i-7", Lang: "en",
		Now: func() time.Time { return now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			now = now.Add(d)
			if !now.Before(busyUntil) {
				write("util", "0\n1\n", 0o644)
			}
			return nil
		}})
	// guard ends after the shutdown command returned (the fake one does
	// not end the machine).
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "shutdown.log")); string(b) != "shutdown -h now\n" {
		t.Fatalf("shutdown ran: %q", b)
	}

	// The bill: i-7 hourly from 20:00 to 09:00 at ¥1.88, and another
	// instance of the same platform that guard did not watch.
	var bill strings.Builder
	bill.WriteString("平台,实例ID,费用类型,开始时间,结束时间,应付金额\n")
	for h := start; h.Before(time.Date(2026, 11, 21, 9, 0, 0, 0, cst)); h = h.Add(time.Hour) {
		fmt.Fprintf(&bill, "AutoDL,i-7,GPU计算,%s,%s,1.88\n", h.Format("2006-01-02 15:04"), h.Add(time.Hour).Format("2006-01-02 15:04"))
	}
	bill.WriteString("AutoDL,i-8,GPU计算,2026-11-21 01:00,2026-11-21 03:00,3.76\n")
	write("bill.csv", bill.String(), 0o644)
	db := filepath.Join(dir, "ledger.db")
	gpubillRun(t, "--db", db, "import", filepath.Join(dir, "bill.csv"))

	find := func(out string) map[string]any {
		t.Helper()
		var doc struct {
			Findings []map[string]any `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var got map[string]any
		for _, f := range doc.Findings {
			if f["rule_id"] == "forgotten_instance" && f["resource_id"] == "i-7" {
				got = f
			}
			if f["resource_id"] == "i-8" {
				t.Errorf("i-8 is not the guarded instance: %v", f)
			}
		}
		if got == nil {
			t.Fatalf("no forgotten_instance finding for i-7:\n%s", out)
		}
		return got
	}
	plain := find(gpubillRun(t, "--db", db, "--month", "2026-11", "audit", "--format", "json", "--lang", "en"))
	if plain["amount_at_risk"] != "9.4" && plain["amount_at_risk"] != "9.40" {
		t.Errorf("without --guard: amount %v, want the 5 h beyond 8 h = 9.40", plain["amount_at_risk"])
	}
	out := gpubillRun(t, "--db", db, "--month", "2026-11", "audit", "--guard", marker, "--format", "json", "--lang", "en")
	f := find(out)
	// 02:50 to 09:00 = 6 h 10 min at ¥1.88/h = 11.596…: 0.1666… of 02:00–03:00 plus 6 rows.
	if a := fmt.Sprint(f["amount_at_risk"]); !strings.HasPrefix(a, "11.59") && !strings.HasPrefix(a, "11.6") {
		t.Errorf("with --guard: amount %s, want the cost after the 02:50 stop ≈ 11.59", a)
	}
	reason := fmt.Sprint(f["reason_en"])
	for _, want := range []string{"idle from 2026-11-21 02:10", "shutdown command at 2026-11-21 02:50", "until 2026-11-21 09:00", "guard.jsonl line 3", "claim back"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason lacks %q: %s", want, reason)
		}
	}
	if f["fingerprint"] != plain["fingerprint"] {
		t.Errorf("the guard's evidence changed the finding's fingerprint: %v → %v", plain["fingerprint"], f["fingerprint"])
	}
	if f["claim"] != "guard_stop" || plain["claim"] != nil {
		t.Errorf("claim: with --guard %v, without %v; want guard_stop and none", f["claim"], plain["claim"])
	}

	// The refund checklist claims the cost after the stop (forgotten_instance
	// is no refund rule: the finding's claim puts it there), and its ticket
	// names the stop; a re-audit without --guard clears the claim again.
	refunds := func() (claims []map[string]any, ticketZH, ticketEN string) {
		t.Helper()
		out := gpubillRun(t, "--db", db, "--month", "2026-11", "report", "refunds", "--format", "json", "--lang", "en")
		var doc struct {
			Platforms []struct {
				Claims  []map[string]any `json:"claims"`
				Tickets []struct {
					TextZH string `json:"text_zh"`
					TextEN string `json:"text_en"`
				} `json:"tickets"`
			} `json:"platforms"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, p := range doc.Platforms {
			claims = append(claims, p.Claims...)
			for _, tk := range p.Tickets {
				ticketZH, ticketEN = ticketZH+tk.TextZH, ticketEN+tk.TextEN
			}
		}
		return claims, ticketZH, ticketEN
	}
	claims, zh, en := refunds()
	if len(claims) != 1 || claims[0]["rule_id"] != "forgotten_instance" || claims[0]["claim"] != "guard_stop" ||
		claims[0]["resource_id"] != "i-7" || claims[0]["amount"] != f["amount_at_risk"] || claims[0]["fingerprint"] != f["fingerprint"] {
		t.Errorf("refund claims: %v; want the i-7 guard stop claim of %v", claims, f["amount_at_risk"])
	}
	for _, want := range []string{"gpubill guard ran its shutdown command at 2026-11-21 02:50 (guard marker file guard.jsonl, line 3)",
		"billing went on until 2026-11-21 09:00", "refund the charges after the stop", "bill.csv rows 8–14"} {
		if !strings.Contains(en, want) {
			t.Errorf("ticket (en) lacks %q:\n%s", want, en)
		}
	}
	for _, want := range []string{"于 2026-11-21 02:50 执行了关机命令（见 guard 标记文件 guard.jsonl 第 3 行）", "持续到 2026-11-21 09:00", "退还关机后的费用"} {
		if !strings.Contains(zh, want) {
			t.Errorf("ticket (zh) lacks %q:\n%s", want, zh)
		}
	}
	again := find(gpubillRun(t, "--db", db, "--month", "2026-11", "audit", "--format", "json", "--lang", "en"))
	if again["claim"] != nil || again["fingerprint"] != f["fingerprint"] {
		t.Errorf("re-audit without --guard: claim %v (fingerprint %v), want none on the same finding", again["claim"], again["fingerprint"])
	}
	if claims, _, _ := refunds(); len(claims) != 0 {
		t.Errorf("re-audit without --guard: refund claims %v, want none", claims)
	}

	// A line that is no guard event: an error naming the file and line.
	write("bad.jsonl", "{\"event\":\"start\",\"time\":\"2026-11-20T12:00:00Z\"}\nnot json\n", 0o644)
	var o, e strings.Builder
	if code := run(context.Background(), []string{"--db", db, "--month", "2026-11", "audit", "--guard", filepath.Join(dir, "bad.jsonl")}, strings.NewReader(""), &o, &e); code == exitOK {
		t.Fatal("a bad marker was accepted")
	}
	if !strings.Contains(e.String(), "bad.jsonl: line 2: not a gpubill guard marker line") {
		t.Errorf("error: %s", e.String())
	}
}
