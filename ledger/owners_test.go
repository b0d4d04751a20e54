package ledger

import (
	"context"
	"slices"
	"testing"
)

// ChargedOwners lists each owner of a charging item once, and leaves out
// credits, taxes, adjustments and negative amounts.
func TestChargedOwners(t *testing.T) {
	db := openTest(t)
	mk := func(key, amount, resource, account, category string) LineItem {
		li := item(key, amount)
		li.ResourceID, li.BillingAccountID, li.ChargeCategory = resource, account, category
		return li
	}
	importItems(t, db, []LineItem{
		mk("a1", "1.88", "i-a", "acct", CategoryUsage),
		mk("a2", "0.94", "i-a", "acct", CategoryUsage), // the same owner again
		mk("b", "0", "i-b", "acct", CategoryUsage),     // zero still counts
		mk("c", "-1.20", "i-c", "acct", CategoryUsage), // a refund does not
		mk("d", "5", "i-d", "acct", CategoryCredit),
		mk("e", "5", "i-e", "acct", CategoryTax),
		mk("f", "5", "i-f", "acct", CategoryAdjustment),
		mk("g", "3", "", "other", CategoryPurchase),
	})
	got, err := db.ChargedOwners(context.Background(), Filter{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b Owner) int {
		return slices.Compare([]string{a.ResourceID, a.BillingAccountID}, []string{b.ResourceID, b.BillingAccountID})
	})
	want := []Owner{{"autodl", "", "other"}, {"autodl", "i-a", "acct"}, {"autodl", "i-b", "acct"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, _ := db.ChargedOwners(context.Background(), Filter{Month: "2026-11"}); len(got) != 0 {
		t.Errorf("another month: got %v, want none", got)
	}
}
