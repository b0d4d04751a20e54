package ingest

import (
	"fmt"
	"testing"
)

// TestTextMemo: the memo returns what its function returns, calls it once
// per distinct triple while it has room, and past memoMax entries still
// answers right (calling the function again) without growing.
func TestTextMemo(t *testing.T) {
	calls := map[[3]string]int{}
	m := newTextMemo(func(a, b, c string) string {
		calls[[3]string{a, b, c}]++
		return a + "|" + b + "|" + c
	})
	for round := range 2 {
		for i := range memoMax + 10 {
			a, b := fmt.Sprint(i%7), fmt.Sprint(i)
			if got := m.get(a, b, ""); got != a+"|"+b+"|" {
				t.Fatalf("round %d, %d: got %q", round, i, got)
			}
			// The parts of a key are not confused with each other.
			if got := m.get(b, a, ""); got != b+"|"+a+"|" {
				t.Fatalf("round %d, %d swapped: got %q", round, i, got)
			}
		}
	}
	if len(m.m) != memoMax {
		t.Errorf("memo holds %d entries, want at most memoMax = %d", len(m.m), memoMax)
	}
	for k := range m.m {
		if calls[k] != 1 {
			t.Errorf("%v was computed %d times while held", k, calls[k])
		}
	}
}

// TestAliyunDerivedEqualsDirect: the cached derivations of the 阿里云 and
// 火山引擎 mappers give what the functions give, on a sample bill's texts.
func TestAliyunDerivedEqualsDirect(t *testing.T) {
	d := newAliyunDerived("aliyun")
	for _, tc := range [][3]string{
		{"", "实例规格 instance_type", "云服务器 ECS ecs 云服务器ECS-按量付费"},
		{"", "系统盘 system_disk", "云服务器 ECS ecs"},
		{"", "公网流量 internet_traffic", "云服务器 ECS ecs"},
		{"调账", "实例规格", "云服务器 ECS"},
		{"", "快照 snapshot", "块存储"},
	} {
		for range 2 {
			if got, want := d.kind.get(tc[0], tc[1], tc[2]), aliyunKind(tc[0], tc[1], tc[2]); got != want {
				t.Errorf("kind of %q: %q, want %q", tc, got, want)
			}
			if got, want := d.pricing.get(tc[1], tc[2], ""), aliyunPricing(tc[1], tc[2]); got != want {
				t.Errorf("pricing of %q: %q, want %q", tc, got, want)
			}
		}
	}
	for _, s := range []string{"2026-10", "202610", "2026年10月", "2026/10/03", "10月"} {
		want, ok := aliyunParseMonth(s)
		for range 2 {
			if got := d.month.get(s, "", ""); got != (billMonth{want, ok}) {
				t.Errorf("month of %q: %+v, want %q %v", s, got, want, ok)
			}
		}
	}
	for _, s := range []string{"", "k1:v1;k2:v2", "key:team value:ml; key:env value:prod", "garbage"} {
		if got, want := d.tags.get(s, "", ""), aliyunTags(s); got != want {
			t.Errorf("tags of %q: %q, want %q", s, got, want)
		}
	}
	for _, tc := range [][2]string{{"ecs.gn7i-c8g1.2xlarge", "GPU:NVIDIA A10*1"}, {"ecs.g7.large", ""}, {"", "NVIDIA V100"}} {
		if got, want := d.gpu.get(tc[0], tc[1], ""), cloudGPUOf("aliyun", tc[0]+" "+tc[1]); got != want {
			t.Errorf("GPU of %q: %+v, want %+v", tc, got, want)
		}
	}
}

// TestCloudDerivedEqualsDirect: the cached derivations of the 腾讯云 and 华为云
// mappers give what the functions give.
func TestCloudDerivedEqualsDirect(t *testing.T) {
	d := newCloudDerived("huaweicloud", tencentPricing, huaweiTags)
	for _, texts := range [][]string{
		{"CPU GPU计算型GN7-CPU", "云服务器CVM-GPU计算型GN7", "云服务器CVM", ""},
		{"", "", "云硬盘 CBS", ""},
		{"流量 公网带宽", "cvm"},
		{"", "  ", ""},
		{"duration", "hws.resource.type.volume", "云硬盘"},
	} {
		for range 2 {
			if got, want := d.kind(texts...), cloudKind(texts...); got != want {
				t.Errorf("kind of %q: %q, want %q", texts, got, want)
			}
		}
	}
	for _, s := range []string{"GPU加速型|pi2.2xlarge.4|8vCPUs", "GN10Xp.2XLARGE40", "S5.LARGE8", "RTX 4090"} {
		if got, want := d.gpu.get(s, "", ""), cloudGPUOf("huaweicloud", s); got != want {
			t.Errorf("GPU of %q: %+v, want %+v", s, got, want)
		}
	}
	for _, tc := range [][3]string{{"按量计费", "-", "按量计费小时结"}, {"包年包月", "", "包年包月新购"}, {"按量计费", "竞价实例", "竞价"}} {
		if got, want := d.pricing.get(tc[0], tc[1], tc[2]), tencentPricing(tc[0], tc[1], tc[2]); got != want {
			t.Errorf("pricing of %q: %q, want %q", tc, got, want)
		}
	}
	for _, s := range []string{"team=ml;env=prod", "", "a|b"} {
		if got, want := d.tags.get(s, "", ""), huaweiTags(s); got != want {
			t.Errorf("tags of %q: %q, want %q", s, got, want)
		}
	}
}
