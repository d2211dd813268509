package natsbus

import (
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// ReconnectBufSize is how many bytes of published events Connect's
// connections hold while reconnecting; past it Publish drops (and logs).
const ReconnectBufSize = 16 << 20

// Connect dials the NATS server(s) at url (comma-separated for a
// cluster) as a long-lived slashd node called name: it reconnects
// forever, buffering up to ReconnectBufSize bytes of publishes
// meanwhile, and re-subscribes on reconnection. The first connection is
// not retried: a node that cannot reach NATS at start fails at once.
// Further options (Logging, credentials, TLS) are applied after these.
func Connect(url, name string, opts ...nats.Option) (*nats.Conn, error) {
	base := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.ReconnectBufSize(ReconnectBufSize),
		nats.Timeout(5 * time.Second),
		nats.DrainTimeout(10 * time.Second),
	}
	return nats.Connect(url, append(base, opts...)...)
}

// Logging is a nats.Option logging the connection's life on log:
// disconnections, reconnections, closing, and asynchronous errors (a
// subscription too slow for the server, permission violations).
func Logging(log *slog.Logger) nats.Option {
	return func(o *nats.Options) error {
		o.DisconnectedErrCB = func(nc *nats.Conn, err error) {
			if err == nil { // closing
				log.Debug("nats: disconnected")
				return
			}
			log.Warn("nats: disconnected", "err", err)
		}
		o.ReconnectedCB = func(nc *nats.Conn) {
			log.Info("nats: reconnected", "url", nc.ConnectedUrlRedacted())
		}
		o.ClosedCB = func(nc *nats.Conn) {
			log.Info("nats: connection closed")
		}
		o.AsyncErrorCB = func(nc *nats.Conn, sub *nats.Subscription, err error) {
			if sub != nil {
				log.Error("nats: async error", "subject", sub.Subject, "err", err)
				return
			}
			log.Error("nats: async error", "err", err)
		}
		return nil
	}
}
