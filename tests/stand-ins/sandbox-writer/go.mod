module github.com/opsbench/opsbench/tests/stand-ins/sandbox-writer

go 1.22
