package rules

import (
	"time"

	"github.com/shopspring/decimal"
)

// What gpubill watch needs from forgotten_instance: the same parameters
// (limit, night window, severity thresholds) in effect under a config, and
// the same night and severity judgement, so that a live alert and the
// month's audit agree.

// ForgottenParams are forgotten_instance's parameters in effect.
type ForgottenParams struct {
	Limit                time.Duration
	NightStart, NightEnd time.Duration // since midnight, in the config's TZ
	Low, Medium, High    decimal.Decimal
	TZ                   *time.Location
}

// Forgotten returns forgotten_instance's parameters in effect under c.
func (c Config) Forgotten() (ForgottenParams, error) {
	in := &Input{cfg: c, ruleID: "forgotten_instance", TZ: c.tz()}
	var p ForgottenParams
	var err error
	if p.Limit, err = in.durationParam("limit"); err != nil {
		return p, err
	}
	if p.NightStart, err = in.clockParam("night_start"); err != nil {
		return p, err
	}
	if p.NightEnd, err = in.clockParam("night_end"); err != nil {
		return p, err
	}
	th, err := in.thresholds()
	if err != nil {
		return p, err
	}
	p.Low, p.Medium, p.High, p.TZ = th.low, th.medium, th.high, c.tz()
	return p, nil
}

// CrossesNight reports whether [start, end) overlaps the night window, as
// forgotten_instance judges it.
func (p ForgottenParams) CrossesNight(start, end time.Time) bool {
	return crossesNight(start, end, p.TZ, p.NightStart, p.NightEnd)
}

// InNight reports whether t falls in the night window.
func (p ForgottenParams) InNight(t time.Time) bool {
	return crossesNight(t, t.Add(time.Second), p.TZ, p.NightStart, p.NightEnd)
}

// Severity is forgotten_instance's severity of amount beyond the limit, one
// step up when the session crossed the night.
func (p ForgottenParams) Severity(amount decimal.Decimal, night bool) string {
	s := thresholds{p.Low, p.Medium, p.High}.severity(amount)
	if night {
		s = raise(s)
	}
	return s
}
