package host

import (
	"context"

	"github.com/toolerr/toolerr/plugin"
)

// nativeEngine calls plugin.Call directly: the same logic as the module,
// compiled into the Go program.
type nativeEngine struct{}

func (nativeEngine) newInstance(context.Context) (instance, error) { return nativeInstance{}, nil }
func (nativeEngine) close(context.Context) error                   { return nil }

type nativeInstance struct{}

func (nativeInstance) call(ctx context.Context, export string, request []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := plugin.Call(export, request)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (nativeInstance) close(context.Context) {}

func (nativeInstance) memoryPages(context.Context) (uint32, error) { return 0, nil }
