package summary

import "fmt"

// What handleSummary() may return, all entries ("stdout" and "stderr" included) together: the runner keeps at most
// this of it as the run's artifacts (apps/runner/src/script-files.ts, ARTIFACT_LIMITS), and anything more would take
// the runner's disk, or its memory where the path is in the sandbox's /tmp.
const (
	MaxFiles     = 20
	MaxFileBytes = 1 << 20
	MaxBytes     = 2 << 20
)

// FilesOverLimit says why handleSummary()'s files are over the limits ("" when they are within them). Over them,
// none is written: a part of the files would be a report the script did not ask for.
func FilesOverLimit(files map[string]string) string {
	total, largest := 0, 0
	for _, content := range files {
		total += len(content)
		largest = max(largest, len(content))
	}
	if len(files) <= MaxFiles && largest <= MaxFileBytes && total <= MaxBytes {
		return ""
	}
	return fmt.Sprintf("handleSummary() output over the limit: %d files, %d bytes in all (at most %d files, %d MiB each, %d MiB in all); nothing of it was written",
		len(files), total, MaxFiles, MaxFileBytes>>20, MaxBytes>>20)
}
