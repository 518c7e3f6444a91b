module github.com/softgraph/softgraph

go 1.26

require (
	github.com/cogentcore/webgpu v0.23.0
	github.com/google/go-cmp v0.7.0
	github.com/rs/zerolog v1.35.1
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
