package ledger

import "strings"

// LineIDColumn is the column a fetched table (package fetch) adds to each
// line: the vendor's own id of that line (腾讯云 BillId and component,
// 火山引擎 BillDetailId, 华为云 id …). It is kept in the line's raw cells, so
// that evidence can cite the line as the vendor knows it instead of a row
// of a file that does not exist.
const LineIDColumn = "gpubill_line_id"

// APIImport splits the path of an import of fetched lines
// ("api:tencentcloud/DescribeBillDetail?account=main&month=2026-11") into
// its provider and API; ok is false for a file's path.
func APIImport(path string) (provider, api string, ok bool) {
	rest, ok := strings.CutPrefix(path, "api:")
	if !ok {
		return "", "", false
	}
	rest, _, _ = strings.Cut(rest, "?")
	provider, api, ok = strings.Cut(rest, "/")
	return provider, api, ok && provider != "" && api != ""
}
