package packet

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

func BenchmarkZZPacket5k(b *testing.B) {
	ctx := context.Background()
	db, err := ledger.Open(ctx, "/tmp/t5k.db")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		p, err := Build(ctx, db, Options{Month: "2026-10", Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.WriteXLSX(io.Discard); err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
func BenchmarkZZBuild5k(b *testing.B) {
	ctx := context.Background()
	db, err := ledger.Open(ctx, "/tmp/t5k.db")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		p, err := Build(ctx, db, Options{Month: "2026-10", Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
