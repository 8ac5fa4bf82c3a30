package redisgrant_test

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// holdProxy passes TCP between go-redis and Redis. Once armed, it holds
// the next EVALSHA a client sends for hold before passing it on, as a
// congested path or a stalled proxy does; with reset it also drops the
// client's connection at once, so go-redis resends the script on a new
// one while the first copy is still on its way.
type holdProxy struct {
	ln    net.Listener
	to    string
	hold  time.Duration
	reset bool
	armed atomic.Bool
	wg    sync.WaitGroup
}

func newHoldProxy(t *testing.T, to string, hold time.Duration, reset bool) *holdProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdProxy{ln: ln, to: to, hold: hold, reset: reset}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *holdProxy) Addr() string { return p.ln.Addr().String() }

func (p *holdProxy) serve() {
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

// forward copies the client's bytes to Redis, holding the armed one.
func (p *holdProxy) forward(c, up net.Conn) {
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if bytes.Contains(bytes.ToLower(chunk), []byte("evalsha")) && p.armed.CompareAndSwap(true, false) {
				if p.reset {
					c.Close()
				}
				time.Sleep(p.hold)
				_, _ = up.Write(chunk)
				// Redis answers into the void; then the path is gone.
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
