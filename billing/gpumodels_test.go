package billing

import (
	"strings"
	"testing"
)

func TestGPUModelOf(t *testing.T) {
	for _, tc := range []struct {
		name, provider, text string
		model                string
		count                int
		ok                   bool
	}{
		{"tencent 4090 by name", "tencentcloud", "GPU计算型 4090 24G", "RTX 4090", 0, true},
		{"tencent component names its GPU", "tencentcloud", "GPU计算型GN7vi-GPU(RTX 4090)", "RTX 4090", 0, true},
		{"tencent CPU component of an unlisted family", "tencentcloud", "GPU计算型GN7vi-CPU", "", 0, false},
		{"tencent GN7 instance type", "tencentcloud", "GN7.2XLARGE32", "T4", 0, true},
		{"tencent GN10Xp", "tencentcloud", "GPU计算型GN10Xp", "V100", 0, true},
		{"volcengine spec with count", "volcengine", "GPU计算型gni2 ecs.gni2.3xlarge (12vCPU 46GiB 1*NVIDIA A10)", "A10", 1, true},
		{"volcengine family alone", "volcengine", "ecs.gni2.3xlarge", "A10", 0, true},
		{"aliyun gn7i", "aliyun", "ecs.gn7i-c8g1.2xlarge", "A10", 0, true},
		{"aliyun gn6v", "aliyun", "ecs.gn6v-c8g1.2xlarge", "V100", 0, true},
		{"aliyun family of another provider", "tencentcloud", "ecs.gn7i-c8g1.2xlarge", "", 0, false},
		{"huawei p2s", "huaweicloud", "云主机|GPU加速型|p2s.2xlarge.8|8vCPUs|64GB|linux", "V100", 0, true},
		{"huawei pi2", "huaweicloud", "pi2.2xlarge.4", "T4", 0, true},
		{"count after", "aliyun", "A100*8", "A100", 8, true},
		{"A100 80GB", "google", "Nvidia Tesla A100 80GB GPU running in Americas", "A100 80G", 0, true},
		{"A100 80G", "aliyun", "GPU:NVIDIA A100 80G*1", "A100 80G", 1, true},
		{"A100-SXM4-80GB", "oracle", "Compute - GPU - A100-SXM4-80GB", "A100 80G", 0, true},
		{"A100 PCIe 40GB", "aliyun", "2 x NVIDIA A100 PCIe 40GB", "A100 40G", 2, true},
		{"A100 40G memory and count", "aliyun", "A100 40G*8", "A100 40G", 8, true},
		{"H100 80GB HBM3 is the H100", "google", "Nvidia H100 80GB HBM3 GPU", "H100", 0, true},
		{"RTX 4090 24G is the 4090", "tencentcloud", "RTX 4090 24G", "RTX 4090", 0, true},
		{"RTX 4090 48G is not", "tencentcloud", "RTX 4090 48G", "RTX 4090 48G", 0, true},
		{"V100 32GB", "aliyun", "NVIDIA V100 32GB", "V100 32G", 0, true},
		{"system memory is no GPU memory", "aliyun", "A10 24G|ecs 8vCPU", "A10", 0, true},
		{"a CPU instance", "aliyun", "ecs.g7.2xlarge", "", 0, false},
		{"no digit glued to a name", "aliyun", "ecs.c8a100x", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, n, ok := GPUModelOf(tc.provider, tc.text)
			if m != tc.model || n != tc.count || ok != tc.ok {
				t.Errorf("GPUModelOf(%q, %q) = %q, %d, %v; want %q, %d, %v", tc.provider, tc.text, m, n, ok, tc.model, tc.count, tc.ok)
			}
		})
	}
}

// TestGPUFamiliesHaveSources: every entry names its vendor page.
func TestGPUFamiliesHaveSources(t *testing.T) {
	fs, err := GPUFamilies()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) < 15 {
		t.Fatalf("got %d families, want the table", len(fs))
	}
	for _, f := range fs {
		if !strings.HasPrefix(f.Source, "https://") || f.Checked == "" {
			t.Errorf("%s %s: source %q, checked %q", f.Provider, f.Family, f.Source, f.Checked)
		}
	}
}
