package redistest

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// HoldProxy passes TCP between a client and a Redis. Once armed, it holds
// the next EVALSHA a client sends for Hold before passing it on, as a
// congested path or a stalled proxy does; with Reset it also drops the
// client's connection at once, so go-redis sends the script again on a
// new connection while the first copy is still on its way. The held copy
// reaches Redis on its own connection, whose reply goes nowhere.
type HoldProxy struct {
	Armed atomic.Bool
	ln    net.Listener
	to    string
	hold  time.Duration
	reset bool
	wg    sync.WaitGroup
}

// NewHoldProxy starts a HoldProxy to addr, closed at t.Cleanup.
func NewHoldProxy(t testing.TB, addr string, hold time.Duration, reset bool) *HoldProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &HoldProxy{ln: ln, to: addr, hold: hold, reset: reset}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.wg.Wait()
	})
	return p
}

// Addr is the address clients dial.
func (p *HoldProxy) Addr() string { return p.ln.Addr().String() }

func (p *HoldProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.to)
		if err != nil {
			c.Close()
			continue
		}
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			_, _ = io.Copy(c, up)
			c.Close()
			up.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.forward(c, up)
		}()
	}
}

// forward copies the client's bytes to Redis, holding the armed script.
func (p *HoldProxy) forward(c, up net.Conn) {
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if bytes.Contains(bytes.ToLower(chunk), []byte("evalsha")) && p.Armed.CompareAndSwap(true, false) {
				if p.reset {
					c.Close()
				}
				time.Sleep(p.hold)
				_, _ = up.Write(chunk)
				_ = up.SetReadDeadline(time.Now().Add(time.Second))
				return
			}
			if _, err := up.Write(chunk); err != nil {
				return
			}
		}
		if err != nil {
			_ = up.SetReadDeadline(time.Now().Add(time.Second))
			return
		}
	}
}
