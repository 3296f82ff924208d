package host

import (
	"context"

	"github.com/toolerr/toolerr/plugin"
)

// nativeEngine calls plugin.Call directly: the same logic as the module,
// compiled into the Go program.
type nativeEngine struct{}

func (nativeEngine) NewInstance(context.Context) (Instance, error) { return nativeInstance{}, nil }
func (nativeEngine) Close(context.Context) error                   { return nil }

type nativeInstance struct{}

func (nativeInstance) Call(ctx context.Context, export string, request []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := plugin.Call(export, request)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (nativeInstance) Close(context.Context) {}

func (nativeInstance) MemoryPages(context.Context) (uint32, error) { return 0, nil }
