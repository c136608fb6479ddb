module opsbench.local/stand-ins/k6-json-replay

go 1.22
