module github.com/softgraph/softgraph/examples/coregpu

go 1.26

require (
	cogentcore.org/core v0.3.12
	github.com/softgraph/softgraph v0.0.0
)

require (
	github.com/anthonynsimon/bild v0.13.0 // indirect
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/cogentcore/webgpu v0.23.0 // indirect
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20240506104042-037f3cc74f2a // indirect
	github.com/hack-pad/go-indexeddb v0.3.2 // indirect
	github.com/hack-pad/hackpadfs v0.2.1 // indirect
	github.com/hack-pad/safejs v0.1.1 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/rs/zerolog v1.35.1 // indirect
	golang.org/x/image v0.25.0 // indirect
	golang.org/x/net v0.38.0 // indirect
	golang.org/x/sys v0.31.0 // indirect
	golang.org/x/text v0.23.0 // indirect
)

replace github.com/softgraph/softgraph => ../..
