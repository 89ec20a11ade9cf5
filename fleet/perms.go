package fleet

import "github.com/nats-io/jwt/v2"

// PeerBucket lists the fleet's hosts and their public keys, written only by the authority.
const PeerBucket = "cockpit_peers"

// inboxPrefix is a host's reply subjects: a host subscribes only to its own.
func inboxPrefix(host string) string { return "_INBOX." + host }

// hostPermissions is what the server lets a host do. It publishes to its own heartbeat key,
// its own audit subject, the halt bucket and the day counts (whose values it signs), and the
// JetStream requests that read the buckets and the stream; it may not create, change, purge
// or delete a bucket or the stream, write another host's heartbeat or audit, or touch the
// peer list. It subscribes only to its own inbox.
func hostPermissions(host string) *jwt.Permissions {
	p := &jwt.Permissions{}
	p.Pub.Allow.Add("$JS.API.INFO",
		"$KV."+HaltBucket+".>", "$KV."+DayBucket+".>", "$KV."+HostBucket+"."+host, auditSubj+host)
	for _, s := range []string{"KV_" + HaltBucket, "KV_" + DayBucket, "KV_" + HostBucket, "KV_" + PeerBucket, AuditStream} {
		p.Pub.Allow.Add("$JS.API.STREAM.INFO."+s, "$JS.API.STREAM.MSG.GET."+s,
			"$JS.API.DIRECT.GET."+s, "$JS.API.DIRECT.GET."+s+".>")
		if s != AuditStream { // watches, key listings and histories are ordered consumers
			p.Pub.Allow.Add("$JS.API.CONSUMER.CREATE."+s+".>", "$JS.API.CONSUMER.DELETE."+s+".>", "$JS.FC."+s+".>")
		}
	}
	p.Sub.Allow.Add(inboxPrefix(host) + ".>")
	return p
}
