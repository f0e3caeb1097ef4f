package crawl

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/incidentlib/casefile"
	"golang.org/x/text/encoding/unicode"
)

func TestClassifyAddress(t *testing.T) {
	tests := []struct {
		addr  string
		class string // "" for a public address
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.0.0.1", "private"},
		{"172.16.5.4", "private"},
		{"172.32.0.1", ""},
		{"192.168.1.1", "private"},
		{"fd12:3456::1", "private"},
		{"169.254.169.254", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"0.0.0.0", "this network"},
		{"::", "unspecified"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "reserved"},
		{"64:ff9b::a00:1", "private"},      // NAT64 of 10.0.0.1
		{"2002:7f00:1::1", "loopback"},     // 6to4 of 127.0.0.1
		{"2002:0808:0808::1", ""},          // 6to4 of a public address
		{"::127.0.0.1", "IPv4-compatible"}, // deprecated form
		{"8.8.8.8", ""},
		{"2606:4700::1111", ""},
		{"93.184.216.34", ""},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		class, blocked := classify(a)
		if blocked != (tt.class != "") || class != tt.class {
			t.Errorf("classify(%s) = %q, %v; want %q", tt.addr, class, blocked, tt.class)
		}
	}
}

func TestControlRefusesResolvedAddresses(t *testing.T) {
	f := mustFetcher(t, Config{}, nil)
	tests := []struct {
		network, address, want string
	}{
		{"tcp4", "127.0.0.1:80", "destination 127.0.0.1 is a private address (loopback); use --allow-private"},
		{"tcp6", "[::ffff:10.0.0.1]:443", "destination ::ffff:10.0.0.1 is a private address (private); use --allow-private"},
		{"tcp6", "[fe80::1%eth0]:443", "destination fe80::1 is a private address (link-local); use --allow-private"},
		{"udp4", "8.8.8.8:53", "network udp4 is not allowed"},
		{"tcp4", "93.184.216.34:443", ""},
	}
	for _, tt := range tests {
		err := f.control(tt.network, tt.address, nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("control(%s, %s) = %q, want %q", tt.network, tt.address, got, tt.want)
		}
	}
}

func TestClassifyErrors(t *testing.T) {
	f := mustFetcher(t, Config{Timeout: 30 * time.Second}, nil)
	const u = "https://status.example.com/incidents/1"
	opErr := func(err error) error {
		return &url.Error{Op: "Get", URL: u, Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", err)}}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		kind error
		msg  string
	}{
		{"an unknown host is permanent", nil, &url.Error{Op: "Get", URL: u, Err: &net.DNSError{Err: "no such host", Name: "status.example.com", IsNotFound: true}}, casefile.ErrPermanent, "no such host status.example.com"},
		{"a DNS failure is temporary", nil, &net.DNSError{Err: "server misbehaving", Name: "status.example.com", IsTemporary: true}, casefile.ErrTransient, "cannot resolve host status.example.com: server misbehaving"},
		{"a refused connection is temporary", nil, opErr(syscall.ECONNREFUSED), casefile.ErrTransient, "connection refused"},
		{"a reset connection is temporary", nil, opErr(syscall.ECONNRESET), casefile.ErrTransient, "connection reset by the server"},
		{"a body cut short is temporary", nil, io.ErrUnexpectedEOF, casefile.ErrTransient, "the server closed the connection early"},
		{"an untrusted certificate is permanent", nil, &url.Error{Op: "Get", URL: u, Err: x509.UnknownAuthorityError{}}, casefile.ErrPermanent, "bad tls certificate: x509: certificate signed by unknown authority"},
		{"a canceled job is temporary", canceled, errors.New("whatever the transport said"), casefile.ErrTransient, "context canceled"},
		{"anything else is temporary, without the url.Error prefix", nil, &url.Error{Op: "Get", URL: u, Err: errors.New("http2: stream reset")}, casefile.ErrTransient, "http2: stream reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			err := f.classify(ctx, u, tt.err, 1<<20)
			checkErr(t, err, tt.kind, "fetch "+u+": "+tt.msg)
		})
	}
}

func TestDecodeBody(t *testing.T) {
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().String("<p>장애</p>")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, mediaType, contentType, body, want, charset string
	}{
		{"a UTF-16 BOM wins over the header", "text/html", "text/html; charset=iso-8859-1", utf16, "<p>장애</p>", "utf-16le"},
		{"an XML declaration names the charset", "application/rss+xml", "application/rss+xml", `<?xml version="1.0" encoding="ISO-8859-1"?><rss>caf` + "\xe9</rss>", `<?xml version="1.0" encoding="ISO-8859-1"?><rss>café</rss>`, "windows-1252"},
		{"XML without a declaration is UTF-8", "application/xml", "application/xml", "<a>\xc3\xa9</a>", "<a>é</a>", "utf-8"},
		{"invalid UTF-8 becomes replacement characters", "application/json", "application/json", "{\"a\":\"\xff\"}", "{\"a\":\"\uFFFD\"}", "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cs, err := decodeBody([]byte(tt.body), tt.mediaType, tt.contentType)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || cs != tt.charset {
				t.Errorf("decodeBody = %q as %s, want %q as %s", got, cs, tt.want, tt.charset)
			}
		})
	}
}

func ExampleFetcher_Fetch() {
	f, err := New(Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = f.Fetch(context.Background(), "ftp://files.example.com/postmortem.txt")
	fmt.Println(err)
	fmt.Println(casefile.KindOf(err))
	// Output:
	// fetch "ftp://files.example.com/postmortem.txt": only http and https URLs can be fetched, not ftp
	// invalid
}

func ExampleReadList() {
	list := "## Database\n\n[Example Corp](https://blog.example.com/outage-2019). A replica fell behind, [see also](https://news.example.com/1).\n"
	entries, err := ReadList(strings.NewReader(list), "README.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Printf("%d %s %q %s\n", e.Line, e.Section, e.Label, e.URL)
	}
	// Output:
	// 3 Database "Example Corp" https://blog.example.com/outage-2019
}
