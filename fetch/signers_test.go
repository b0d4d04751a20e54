package fetch

import (
	"net/url"
	"testing"
)

// TestTC3WorkedExample signs the request of 腾讯云's "签名方法 v3" worked
// example (cloud.tencent.com/document/api/213/30654: CVM DescribeInstances,
// timestamp 1551113065, the doc's masked key) and expects the signature the
// doc prints.
func TestTC3WorkedExample(t *testing.T) {
	payload := []byte(`{"Limit": 1, "Filters": [{"Values": ["\u672a\u547d\u540d"], "Name": "instance-name"}]}`)
	got := TC3("AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******", "Gu5t9xGARNpq86cd98joQYCN3*******", "cvm",
		"cvm.tencentcloudapi.com", "application/json; charset=utf-8", payload, 1551113065)
	want := "TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******/2019-02-25/cvm/tc3_request, " +
		"SignedHeaders=content-type;host, Signature=2230eefd229f582d8b1b891af7107b91597240707d778ab3738f756258d7652c"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if h := sha256Hex(payload); h != "35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064" {
		t.Errorf("payload hash %s", h)
	}
}

// TestACSRPCWorkedExample is 阿里云's worked example of signature v1.0
// (help.aliyun.com/document_detail/25492.html: ECS DescribeRegions, key
// testid / testsecret).
func TestACSRPCWorkedExample(t *testing.T) {
	q := url.Values{}
	for k, v := range map[string]string{"Timestamp": "2016-02-23T12:46:24Z", "Format": "XML", "AccessKeyId": "testid",
		"Action": "DescribeRegions", "SignatureMethod": "HMAC-SHA1", "SignatureNonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
		"Version": "2014-05-26", "SignatureVersion": "1.0"} {
		q.Set(k, v)
	}
	wantSTS := "GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML%26SignatureMethod%3DHMAC-SHA1" +
		"%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf%26SignatureVersion%3D1.0" +
		"%26Timestamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26"
	if got := ACSRPCStringToSign("GET", q); got != wantSTS {
		t.Errorf("string to sign\ngot  %s\nwant %s", got, wantSTS)
	}
	if got, want := ACSRPCSignature("GET", q, "testsecret"), "OLeaidS1JvxuMvnyHOwuJ+uX5qY="; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	q.Set("Signature", "ignored")
	if got := ACSRPCSignature("GET", q, "testsecret"); got != "OLeaidS1JvxuMvnyHOwuJ+uX5qY=" {
		t.Errorf("Signature parameter must not be signed: got %s", got)
	}
	for in, want := range map[string]string{"a b": "a%20b", "a*b": "a%2Ab", "a~b": "a~b", "/": "%2F", "中": "%E4%B8%AD"} {
		if got := percentEncode(in); got != want {
			t.Errorf("percentEncode(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVolcV4WorkedExample is 火山引擎's worked example of its signature
// (volcengine.com/docs/6369/67270, the IAM ListUsers request of
// 2020-12-30T08:18:05Z with the doc's sample keys); the same Authorization
// is printed on its 公共参数 page (volcengine.com/docs/6500/1285432).
func TestVolcV4WorkedExample(t *testing.T) {
	q := url.Values{"Action": {"ListUsers"}, "Version": {"2018-01-01"}, "Limit": {"10"}, "Offset": {"0"}}
	ct := "application/x-www-form-urlencoded; charset=utf-8"
	sts := VolcV4StringToSign("cn-north-1", "iam", "GET", "iam.volcengineapi.com", "/", q, ct, nil, "20201230T081805Z")
	if want := "HMAC-SHA256\n20201230T081805Z\n20201230/cn-north-1/iam/request\n3a4d4dee07c3308a52da01bc12d7a83c3705bfa543f51648f46de880bb2a7447"; sts != want {
		t.Errorf("string to sign\ngot  %q\nwant %q", sts, want)
	}
	got := VolcV4("AKLTMjI2ODVlYzI3ZGY1NGU4ZjhjYWRjMTlmNTM5OTZkYzE", "TnpCak5XWXpZV1U0WkRaaE5ERmxaR0ZpTmpjeVkyUXlZek0wTWpJMU1qWQ==",
		"cn-north-1", "iam", "GET", "iam.volcengineapi.com", "/", q, ct, nil, "20201230T081805Z")
	want := "HMAC-SHA256 Credential=AKLTMjI2ODVlYzI3ZGY1NGU4ZjhjYWRjMTlmNTM5OTZkYzE/20201230/cn-north-1/iam/request, " +
		"SignedHeaders=content-type;host;x-content-sha256;x-date, Signature=28eeabbbd726b87002e0fe58ad8c1c768e619b06e2646f35b6ad7ed029a6d8a7"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestHuaweiSDKWorkedExample is 华为云's worked example of SDK-HMAC-SHA256
// (support.huaweicloud.com/intl/en-us/devg-apisign/api-sign-algorithm-002.html
// to -004.html: the VPC query of 20191115T033655Z, whose canonical request
// hashes to b25362e6…, signed with the doc's sample SK).
func TestHuaweiSDKWorkedExample(t *testing.T) {
	q := url.Values{"limit": {"2"}, "marker": {"13551d6b-755d-4757-b956-536f674975c0"}}
	h := map[string]string{"content-type": "application/json", "host": "service.region.example.com", "x-sdk-date": "20191115T033655Z"}
	sts := HuaweiStringToSign("GET", "/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs", q, h, nil)
	if want := "SDK-HMAC-SHA256\n20191115T033655Z\nb25362e603ee30f4f25e7858e8a7160fd36e803bb2dfe206278659d71a9bcd7a"; sts != want {
		t.Errorf("string to sign\ngot  %q\nwant %q", sts, want)
	}
	got := HuaweiSDKSignature("AK-EXAMPLE", "MFyfvK41ba2giqM7Uio6PznpdUKGpownRZlmVmHc", "GET",
		"/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs", q, h, nil)
	want := "SDK-HMAC-SHA256 Access=AK-EXAMPLE, SignedHeaders=content-type;host;x-sdk-date, " +
		"Signature=7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
