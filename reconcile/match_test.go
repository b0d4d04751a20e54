package reconcile

import (
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

var t0 = time.Date(2026, 10, 8, 6, 0, 0, 0, time.UTC)

func top(id int64, provider string, at time.Duration, amount, ref string) FlowRow {
	return FlowRow{ID: id, Provider: provider, Time: t0.Add(at), Type: ledger.TxTopup,
		Amount: decimal.RequireFromString(amount), Currency: "CNY", Reference: ref}
}

func pay(id int64, at time.Duration, amount, payee, merchant string) PaymentRow {
	p := ledger.Payment{ID: id, Source: "alipay", Time: t0.Add(at), Direction: "out", Counterparty: payee,
		Amount: decimal.RequireFromString(amount), Currency: "CNY", Status: "交易成功", OrderNo: "P" + string(rune('0'+id)),
		MerchantOrderNo: merchant}
	return PaymentRowOf(&p, "pay.csv")
}

// pairs renders the pairs as "flow id → payment id (basis)".
func pairs(m Matching) []string {
	var out []string
	for _, p := range m.Pairs {
		out = append(out, string(rune('0'+p.Flow.ID))+"→"+string(rune('0'+p.Payment.ID))+" "+p.Basis)
	}
	return out
}

func TestMatch(t *testing.T) {
	min := time.Minute
	tests := []struct {
		name          string
		flows         []FlowRow
		pays          []PaymentRow
		want          []string
		unmatchedPay  int
		unmatchedFlow int
	}{
		{
			name:  "two equal top-ups close together: nearest pairs win, never one payment twice",
			flows: []FlowRow{top(1, "autodl", 0, "100", ""), top(2, "autodl", 20*min, "100", "")},
			pays:  []PaymentRow{pay(1, 19*min+50*time.Second, "100", "AutoDL", ""), pay(2, -20*time.Second, "100", "AutoDL", "")},
			want:  []string{"1→2 amount_time", "2→1 amount_time"},
		},
		{
			name:  "order number wins outright, even outside the window",
			flows: []FlowRow{top(1, "autodl", 0, "50", "ORD-9")},
			pays:  []PaymentRow{pay(1, time.Second, "50", "AutoDL", ""), pay(2, 5*time.Hour, "50", "AutoDL", "ORD-9")},
			want:  []string{"1→2 order_number"},
			// the other payment to AutoDL is left: a payment with no top-up
			unmatchedPay: 1,
		},
		{
			name:  "amounts must be equal exactly",
			flows: []FlowRow{top(1, "autodl", 0, "100.00", "")},
			pays:  []PaymentRow{pay(1, 0, "100.01", "AutoDL", "")},
			want:  nil, unmatchedPay: 1, unmatchedFlow: 1,
		},
		{
			name:  "window edges: 10 minutes before and 30 after count, a second more does not",
			flows: []FlowRow{top(1, "autodl", 0, "1", ""), top(2, "autodl", time.Hour, "2", ""), top(3, "autodl", 2*time.Hour, "3", ""), top(4, "autodl", 3*time.Hour, "4", "")},
			pays: []PaymentRow{pay(1, -10*min, "1", "AutoDL", ""), pay(2, time.Hour+30*min, "2", "AutoDL", ""),
				pay(3, 2*time.Hour-10*min-time.Second, "3", "AutoDL", ""), pay(4, 3*time.Hour+30*min+time.Second, "4", "AutoDL", "")},
			want:         []string{"1→1 amount_time", "2→2 amount_time"},
			unmatchedPay: 2, unmatchedFlow: 2,
		},
		{
			name:  "a payee of another platform is never a candidate; an unknown one is, after a known one",
			flows: []FlowRow{top(1, "autodl", 0, "10", ""), top(2, "matpool", 0, "20", "")},
			pays: []PaymentRow{pay(1, 0, "10", "恒源云", ""), pay(2, time.Second, "10", "某某网络科技", ""),
				pay(3, 5*time.Second, "10", "北京视拓云科技有限公司", ""), pay(4, 0, "20", "某某网络科技", "")},
			want: []string{"1→3 amount_time", "2→4 amount_time"},
			// the 恒源云 payment is listed (a known platform); the unknown payee of ¥10 is not
			unmatchedPay: 1,
		},
		{
			name:  "a coffee is not a missing top-up",
			flows: nil,
			pays:  []PaymentRow{pay(1, 0, "28", "瑞幸咖啡", "")},
			want:  nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Match(tc.flows, tc.pays, MatchOptions{})
			if got := pairs(m); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pairs: got %v, want %v", got, tc.want)
			}
			if len(m.UnmatchedPayments) != tc.unmatchedPay || len(m.UnmatchedTopups) != tc.unmatchedFlow {
				t.Errorf("unmatched: got %d payments, %d top-ups; want %d, %d",
					len(m.UnmatchedPayments), len(m.UnmatchedTopups), tc.unmatchedPay, tc.unmatchedFlow)
			}
			// Deterministic: the same input in reverse order gives the same pairs.
			rf := append([]FlowRow(nil), tc.flows...)
			rp := append([]PaymentRow(nil), tc.pays...)
			for i, j := 0, len(rf)-1; i < j; i, j = i+1, j-1 {
				rf[i], rf[j] = rf[j], rf[i]
			}
			for i, j := 0, len(rp)-1; i < j; i, j = i+1, j-1 {
				rp[i], rp[j] = rp[j], rp[i]
			}
			if got := pairs(Match(rf, rp, MatchOptions{})); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reversed input: got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMatchTieBreaksByRowOrder(t *testing.T) {
	// Two top-ups at the same instant, two payments at the same distance:
	// the first row takes the first payment.
	flows := []FlowRow{top(1, "autodl", 0, "5", ""), top(2, "autodl", 0, "5", "")}
	pays := []PaymentRow{pay(1, time.Minute, "5", "AutoDL", ""), pay(2, time.Minute, "5", "AutoDL", "")}
	if got, want := pairs(Match(flows, pays, MatchOptions{})), []string{"1→1 amount_time", "2→2 amount_time"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestMatchRefunds(t *testing.T) {
	wd := FlowRow{ID: 1, Provider: "matpool", Time: t0, Type: ledger.TxWithdrawal, Amount: decimal.RequireFromString("10"), Currency: "CNY"}
	refund := ledger.Payment{ID: 1, Source: "wechatpay", Time: t0.Add(26 * time.Hour), Direction: "in", Counterparty: "矩池云",
		Amount: decimal.RequireFromString("10"), Currency: "CNY", Status: "已全额退款"}
	late := refund
	late.ID, late.Time = 2, t0.Add(8*24*time.Hour)
	m := Match([]FlowRow{wd}, []PaymentRow{PaymentRowOf(&refund, ""), PaymentRowOf(&late, "")}, MatchOptions{})
	if len(m.Pairs) != 1 || m.Pairs[0].Kind != KindRefund || m.Pairs[0].Payment.ID != 1 {
		t.Errorf("got %+v, want the withdrawal paired with the refund of the next day", m.Pairs)
	}
	if len(m.UnmatchedPayments) != 1 || !m.UnmatchedPayments[0].Refund {
		t.Errorf("got %+v, want the refund 8 days later listed as unmatched", m.UnmatchedPayments)
	}
	// A closed payment and the refund that undid it take no part.
	closed := ledger.Payment{ID: 3, Source: "alipay", Time: t0, Direction: "out", Counterparty: "AutoDL",
		Amount: decimal.RequireFromString("20"), Currency: "CNY", Status: "交易关闭", OrderNo: "X1"}
	undo := ledger.Payment{ID: 4, Source: "alipay", Time: t0.Add(time.Hour), Direction: "none", Counterparty: "AutoDL",
		Item: "退款-充值", Amount: decimal.RequireFromString("20"), Currency: "CNY", Status: "退款成功", OrderNo: "X1_R1"}
	m = Match(nil, []PaymentRow{PaymentRowOf(&closed, ""), PaymentRowOf(&undo, "")}, MatchOptions{})
	if len(m.UnmatchedPayments) != 0 {
		t.Errorf("got %+v, want a closed payment and its refund left out", m.UnmatchedPayments)
	}
}

func TestPayeeProvider(t *testing.T) {
	tests := []struct{ counterparty, item, want string }{
		{"北京视拓云科技有限公司", "", "autodl"},
		{"支付宝", "AutoDL余额充值", "autodl"},
		{"阿里云计算有限公司", "", "aliyun"},
		{"潞晨科技", "", "luchen"},
		{"矩池云（北京）科技有限公司", "", "matpool"},
		{"瑞幸咖啡", "生椰拿铁", ""},
	}
	for _, tc := range tests {
		if got, _ := PayeeProvider(tc.counterparty, tc.item); got != tc.want {
			t.Errorf("PayeeProvider(%q, %q) = %q, want %q", tc.counterparty, tc.item, got, tc.want)
		}
	}
}
