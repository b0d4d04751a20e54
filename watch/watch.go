package watch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/gpubill/gpubill/fetch"
	"github.com/gpubill/gpubill/ledger"
)

// Request is one poll.
type Request struct {
	Accounts  []fetch.Account
	Region    string // "" = each account's, else the vendor's default
	Options   fetch.Options
	Judge     Judge
	Notifiers []Notifier
	DryRun    bool // judge and report, send and record nothing
	Now       func() time.Time
}

// Source is one account polled.
type Source struct {
	Provider, Account, Region string
	Instances                 int
	Delay                     string
	Err                       error
}

// Outcome is what a poll did.
type Outcome struct {
	Sources []Source
	// LedgerSources are the ledger's data the ledger alerts were judged
	// on, each with its delay.
	LedgerSources []LedgerSource
	// Sent are the alerts sent (or, in a dry run, that would be);
	// Held the escalations kept for the night's end; Open every alert in
	// force now, sent or not; Cleared the keys of alerts whose condition
	// ended.
	Sent, Held, Open []Alert
	Cleared          []string
	// SendErrors are the notifiers' failures. An alert no notifier took
	// stays unrecorded and is tried again by the next poll; one that some
	// took is recorded (the failing notifiers miss it).
	SendErrors []error
}

// Run polls every account once, judges, sends and records.
func Run(ctx context.Context, db *ledger.DB, req Request) (Outcome, error) {
	var out Outcome
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	if req.Options.Now == nil {
		req.Options.Now = now
	}
	type listed struct {
		k   acctKey
		ins []fetch.Instance
	}
	var ok []listed
	for _, acct := range req.Accounts {
		ins, err := fetch.ListInstances(ctx, acct, req.Region, req.Options)
		src := Source{Provider: acct.Provider, Account: acct.Name, Region: req.Region, Instances: len(ins),
			Delay: fetch.SourceDelay(acct.Provider, req.Judge.Lang), Err: err}
		out.Sources = append(out.Sources, src)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return out, err
			}
			continue
		}
		ok = append(ok, listed{acctKey{acct.Provider, acct.Name}, ins})
	}
	t := now()
	// Judged before the write lock: reading bills and balances needs no
	// lock, and a second watcher waits less.
	ledgerAlerts, ledgerSources, err := req.Judge.ledgerAlerts(ctx, db, t)
	if err != nil {
		return out, err
	}
	out.LedgerSources = ledgerSources
	tx, err := begin(ctx, db)
	if err != nil {
		return out, err
	}
	defer tx.Rollback()
	for _, l := range ok {
		prev, lastPoll, err := loadSeen(ctx, tx, l.k)
		if err != nil {
			return out, err
		}
		open, err := loadOpen(ctx, tx, l.k, instanceKinds)
		if err != nil {
			return out, err
		}
		obs := make([]Observed, 0, len(l.ins))
		for _, in := range l.ins {
			o := observe(in, prev, lastPoll, t)
			if o.State == fetch.StateStopped && !o.SinceKnown {
				// The bills so far are the second source: the end of the
				// instance's last compute charge is when it stopped.
				if end, ok, err := lastCharge(ctx, tx, in.Provider, in.ID); err != nil {
					return out, err
				} else if ok && end.Before(t) {
					o.Since, o.SinceKnown, o.SinceSource = end, true, "bill"
				}
			}
			obs = append(obs, o)
		}
		if !req.DryRun {
			if err := saveSeen(ctx, tx, l.k, obs, t); err != nil {
				return out, err
			}
		}
		current := map[string]bool{}
		for _, o := range obs {
			for _, a := range req.Judge.alerts(o, t) {
				current[a.Key] = true
				if err := settle(ctx, tx, req, &out, a, open); err != nil {
					return out, err
				}
			}
		}
		if err := clearEnded(ctx, tx, req, &out, open, current, t); err != nil {
			return out, err
		}
	}
	// The ledger's alerts: once per poll, over every provider in it.
	open, err := loadOpenKinds(ctx, tx, ledgerKinds)
	if err != nil {
		return out, err
	}
	current := map[string]bool{}
	for _, a := range ledgerAlerts {
		current[a.Key] = true
		if err := settle(ctx, tx, req, &out, a, open); err != nil {
			return out, err
		}
	}
	if err := clearEnded(ctx, tx, req, &out, open, current, t); err != nil {
		return out, err
	}
	if req.DryRun {
		return out, nil
	}
	if err := tx.Commit(); err != nil {
		return out, fmt.Errorf("watch: record the poll: %w", err)
	}
	return out, nil
}

// observe says since when in is in its state: the API's start time where it
// gives one; else the earlier poll's record while the state is the same;
// else this poll (a change seen now, within one interval), or — for an
// instance never seen before — its creation time when it was created after
// the account's last poll, else this poll as a lower bound (SinceKnown
// false).
func observe(in fetch.Instance, prev map[string]seen, lastPoll, now time.Time) Observed {
	o := Observed{Instance: in}
	p, was := prev[in.ID]
	switch {
	case in.State == fetch.StateRunning && !in.StartedAt.IsZero():
		o.Since, o.SinceKnown, o.SinceSource = in.StartedAt, true, "api"
	case was && p.state == in.State:
		o.Since, o.SinceKnown, o.SinceSource = p.since, p.sinceKnown, "poll"
	case was:
		o.Since, o.SinceKnown, o.SinceSource = now, true, "poll"
	case !lastPoll.IsZero() && !in.CreatedAt.IsZero() && in.CreatedAt.After(lastPoll):
		o.Since, o.SinceKnown, o.SinceSource = in.CreatedAt, true, "api"
	default:
		o.Since, o.SinceKnown, o.SinceSource = now, false, "poll"
	}
	return o
}

// settle decides what to do with alert a of this poll against the open
// alerts: send it when new or escalated (held at night for running
// instances), record what was sent.
func settle(ctx context.Context, tx *sql.Tx, req Request, out *Outcome, a Alert, open map[string]sent) error {
	out.Open = append(out.Open, a)
	before, was := open[a.Key]
	switch {
	case !was:
		a.Event = EventNew
	case a.step <= before.step:
		return nil
	case a.Kind == KindRunning && req.Judge.Forgotten.InNight(a.Now):
		out.Held = append(out.Held, a) // one message at the night's end, not one per step
		return nil
	default:
		a.Event = EventEscalated
	}
	if !req.DryRun {
		// Recorded once any notifier took it: a broken one must not make
		// the working ones repeat it every poll. When none took it, the
		// next poll tries again.
		delivered, errs := send(ctx, req.Notifiers, a, req.Judge.Lang)
		out.SendErrors = append(out.SendErrors, errs...)
		if len(errs) > 0 && delivered == 0 {
			return nil
		}
		if err := saveSent(ctx, tx, a); err != nil {
			return err
		}
	}
	out.Sent = append(out.Sent, a)
	return nil
}

// clearEnded clears the open alerts whose condition this poll no longer
// finds.
func clearEnded(ctx context.Context, tx *sql.Tx, req Request, out *Outcome, open map[string]sent, current map[string]bool, t time.Time) error {
	keys := make([]string, 0, len(open))
	for k := range open {
		if !current[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !req.DryRun {
			if err := clear(ctx, tx, k, t); err != nil {
				return err
			}
		}
		out.Cleared = append(out.Cleared, k)
	}
	return nil
}
