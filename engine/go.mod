module github.com/opsbench/opsbench/engine

go 1.25.0

require (
	github.com/evanw/esbuild v0.28.2
	github.com/grafana/sobek v0.0.0-20260429085637-a66d4790012b
	github.com/tidwall/gjson v1.18.0
)

require (
	github.com/dlclark/regexp2 v1.12.0 // indirect
	github.com/go-sourcemap/sourcemap v2.1.4+incompatible // indirect
	github.com/google/pprof v0.0.0-20230207041349-798e818bf904 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	golang.org/x/sys v0.0.0-20220722155257-8c9f86f7a55f // indirect
	golang.org/x/text v0.3.8 // indirect
)
