module cairn

go 1.26.8

require (
	github.com/asg017/sqlite-vec-go-bindings v0.1.6
	github.com/ledongthuc/pdf v0.0.0-20260907135840-6c8c28e0e8a0
	github.com/ncruces/go-sqlite3 v0.21.3
	github.com/ollama/ollama v0.17.4
	github.com/otiai10/gosseract/v2 v2.4.1
	github.com/richardlehane/mscfb v1.0.9
	github.com/xuri/excelize/v2 v2.10.0
	golang.org/x/image v0.47.0
	golang.org/x/net v0.62.0
	golang.org/x/sync v0.24.0
	golang.org/x/text v0.43.0
)

require (
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/richardlehane/msoleps v1.0.4 // indirect
	github.com/tetratelabs/wazero v1.8.2 // indirect
	github.com/tiendc/go-deepcopy v1.7.1 // indirect
	github.com/xuri/efp v0.0.1 // indirect
	github.com/xuri/nfp v0.0.2-0.20250530014748-2ddeb826f9a9 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
