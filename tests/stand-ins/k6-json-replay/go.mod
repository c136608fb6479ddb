module github.com/opsbench/opsbench/tests/stand-ins/k6-json-replay

go 1.22
