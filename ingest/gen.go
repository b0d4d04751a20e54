package ingest

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/gocarina/gocsv"
	"github.com/shopspring/decimal"
)

// sampleRow is one generated bill line of the gpubill template, written with
// gocsv (its struct tags are the Chinese headers).
type sampleRow struct {
	Provider     string `csv:"平台"`
	Account      string `csv:"账号"`
	Project      string `csv:"项目"`
	ResourceID   string `csv:"实例ID"`
	ResourceName string `csv:"实例名称"`
	Kind         string `csv:"费用类型"`
	Pricing      string `csv:"计费方式"`
	GPUModel     string `csv:"GPU型号"`
	GPUCount     string `csv:"GPU数量"`
	Start        string `csv:"开始时间"`
	End          string `csv:"结束时间"`
	Quantity     string `csv:"计费数量"`
	Unit         string `csv:"单位"`
	UnitPrice    string `csv:"单价"`
	ListCost     string `csv:"原价"`
	Billed       string `csv:"应付金额"`
	Voucher      string `csv:"代金券"`
	Cash         string `csv:"现金支付"`
	Description  string `csv:"说明"`
}

// WriteSampleTemplateCSV writes a synthetic gpubill bill-lines CSV (UTF-8,
// Chinese headers) of rows data rows, the same for the same seed: hourly GPU
// charges of a few hundred instances on six platforms, with daily disk,
// image and traffic lines mixed in, amounts with 2 to 8 decimals. It is for
// benchmarks and load tests (`BenchmarkImportTemplateCSV`, the 1M-row
// check). Every row is distinct, so importing the file adds rows lines.
// Row i is instance i%400's line of hour i/400 from 2026-10-01, so a month
// holds 297,600 rows.
func WriteSampleTemplateCSV(w io.Writer, rows int, seed int64) error {
	return WriteSampleFleetCSV(w, rows, 400, seed)
}

// WriteSampleFleetCSV is WriteSampleTemplateCSV's bill of a fleet of
// instances billed every hour: row i is instance i%instances's line of hour
// i/instances, so 1,345 instances put a million rows in one month (the
// audit's budget is set for such a month).
func WriteSampleFleetCSV(w io.Writer, rows, instances int, seed int64) error {
	if rows < 0 {
		return fmt.Errorf("sample template: negative row count %d", rows)
	}
	if instances < 1 || instances > 2000 { // resource ids keep 6 hex digits
		return fmt.Errorf("sample template: %d instances, want 1 to 2000", instances)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	type gpu struct {
		model string
		price int64 // fen per hour ×10^4 (6 decimals of yuan)
	}
	gpus := []gpu{{"RTX 4090", 1880000}, {"RTX 3090", 1320000}, {"A100 80G", 7980000}, {"A800", 6500000}, {"V100", 2580000}, {"L40S", 4280000}}
	providers := []string{"AutoDL", "恒源云", "矩池云", "GpuGeek", "揽睿星舟", "潞晨云"}
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	const layout = "2006-01-02 15:04:05"

	if rows == 0 { // header only (MarshalChan needs a first row)
		cw := csv.NewWriter(w)
		if err := gocsv.MarshalCSV([]sampleRow{}, gocsv.NewSafeCSVWriter(cw)); err != nil {
			return fmt.Errorf("sample template: %w", err)
		}
		cw.Flush()
		return cw.Error()
	}
	ch := make(chan any, 256)
	errc := make(chan error, 1)
	cw := csv.NewWriter(w)
	go func() { errc <- gocsv.MarshalChan(ch, gocsv.NewSafeCSVWriter(cw)) }()
	send := func(r *sampleRow) bool {
		select {
		case ch <- r:
			return true
		case err := <-errc: // the writer stopped early
			errc <- err
			return false
		}
	}
	for i := 0; i < rows; i++ {
		// Row i is instance i%instances's row of hour i/instances: none is billed
		// twice for an hour, as on a real bill (an instance drawn at random
		// for each row was, and the audit saw a fifth of a million
		// overlapping charges in a million rows). The instance's offset in
		// seconds keeps every row distinct.
		hour, inst := i/instances, i%instances
		g := gpus[inst%len(gpus)]
		p := providers[inst%len(providers)]
		start := base.Add(time.Duration(hour)*time.Hour + time.Duration(inst)*time.Second)
		r := &sampleRow{
			Provider: p, Account: fmt.Sprintf("lab-%d", inst%7), Project: fmt.Sprintf("P%02d", inst%13),
			ResourceID: fmt.Sprintf("i-%06x", inst*7919), ResourceName: fmt.Sprintf("train-%d", inst),
			Pricing: "按量",
		}
		var billed, voucher decimal.Decimal
		k := rng.IntN(20)
		if k >= 16 && k < 19 && hour%24 != inst%24 {
			// Disks and images are billed a day at a time, once a day per
			// instance (at its own hour); other hours it computes.
			k = 0
		}
		switch {
		case k < 16: // an hour (or part of one) of GPU time
			secs := 600 + rng.IntN(3001)
			end := start.Add(time.Duration(secs) * time.Second)
			qty := decimal.New(int64(secs), 0).Div(decimal.New(3600, 0)).Round(6)
			price := decimal.New(g.price, -6)
			billed = price.Mul(qty).Round(int32(2 + rng.IntN(7)))
			r.Kind, r.GPUModel, r.GPUCount = "GPU计算", g.model, "1"
			r.Start, r.End = start.Format(layout), end.Format(layout)
			r.Quantity, r.Unit, r.UnitPrice, r.ListCost = qty.String(), "小时", price.String(), billed.String()
		case k < 18: // a day of data disk
			gb := 50 + rng.IntN(450)
			price := decimal.New(66, -4)
			billed = price.Mul(decimal.New(int64(gb), 0))
			r.Kind, r.Start, r.End = "数据盘", start.Format(layout), start.Add(24*time.Hour).Format(layout)
			r.Quantity, r.Unit, r.UnitPrice = fmt.Sprint(gb), "GB·天", price.String()
			r.Description = "数据盘扩容"
		case k < 19: // a saved image
			gb := 31 + rng.IntN(100)
			billed = decimal.New(int64(gb-30), -2)
			r.Kind, r.Start, r.End = "镜像", start.Format(layout), start.Add(24*time.Hour).Format(layout)
			r.Quantity, r.Unit = fmt.Sprint(gb), "GB·天"
		default: // traffic
			gb := decimal.New(int64(rng.IntN(100000)), -3)
			billed = gb.Mul(decimal.New(8, -1)).Round(4)
			r.Kind, r.Start, r.End = "流量", start.Format(layout), start.Add(time.Hour).Format(layout)
			r.Quantity, r.Unit = gb.String(), "GB"
		}
		if rng.IntN(10) == 0 {
			voucher = billed.Div(decimal.New(2, 0)).Round(2)
			r.Voucher = voucher.String()
		}
		r.Billed = billed.String()
		r.Cash = billed.Sub(voucher).String()
		if !send(r) {
			break
		}
	}
	close(ch)
	if err := <-errc; err != nil {
		return fmt.Errorf("sample template: %w", err)
	}
	cw.Flush()
	return cw.Error()
}
