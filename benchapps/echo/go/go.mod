module github.com/opsbench/opsbench/benchapps/echo/go

go 1.22
