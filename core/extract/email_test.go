package extract

import (
	"fmt"
	"strings"
	"testing"
)

const multipartMail = "From: =?utf-8?q?Jos=C3=A9?= <jose@example.com>\r\n" +
	"To: team@example.com\r\n" +
	"Subject: =?iso-8859-1?q?R=E9union?= notes\r\n" +
	"Date: Mon, 2 Mar 2026 10:00:00 +0100\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n" +
	"--outer\r\n" +
	"Content-Type: multipart/alternative; boundary=\"inner\"\r\n\r\n" +
	"--inner\r\n" +
	"Content-Type: text/plain; charset=iso-8859-1\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n\r\n" +
	"Caf=E9 at ten. The budget code is BX-17.\r\n" +
	"--inner\r\n" +
	"Content-Type: text/html; charset=utf-8\r\n\r\n" +
	"<p>HTML version should not be used</p>\r\n" +
	"--inner--\r\n" +
	"--outer\r\n" +
	"Content-Type: text/plain; name=\"agenda.txt\"\r\n" +
	"Content-Disposition: attachment; filename=\"agenda.txt\"\r\n" +
	"Content-Transfer-Encoding: base64\r\n\r\n" +
	"SXRlbSAxOiBoaXJpbmcKSXRlbSAy\r\nOiByb2FkbWFw\r\n" +
	"--outer\r\n" +
	"Content-Type: application/octet-stream\r\n" +
	"Content-Disposition: attachment; filename=\"blob.bin\"\r\n\r\n" +
	"\x00\x01\x02\x03\r\n" +
	"--outer--\r\n"

func TestEmailWithAttachments(t *testing.T) {
	r := NewRegistry(DefaultLimits())
	doc, err := extractBytes(t, r, "meeting.eml", []byte(multipartMail))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"From: José <jose@example.com>\n", "Subject: Réunion notes\n", "Café at ten. The budget code is BX-17.",
		"Attachment: agenda.txt\nItem 1: hiring\nItem 2: roadmap",
	} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("missing %q in:\n%s", want, doc.Text)
		}
	}
	if strings.Contains(doc.Text, "HTML version") {
		t.Error("the HTML alternative was used although a plain text part exists")
	}
	if doc.Title != "Réunion notes" {
		t.Errorf("title %q", doc.Title)
	}
	if len(doc.Units) != 2 || doc.Units[0].Kind != UnitMessage || doc.Units[1].Kind != UnitAttachment || doc.Units[1].Label != "agenda.txt" {
		t.Fatalf("units %+v", doc.Units)
	}
	if got := doc.Text[doc.Units[1].Start:doc.Units[1].End]; !strings.HasPrefix(got, "Attachment: agenda.txt") {
		t.Errorf("attachment unit text %q", got)
	}
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "attachment blob.bin skipped: binary file") {
		t.Errorf("warnings %v", doc.Warnings)
	}
}

func TestEmailHTMLOnly(t *testing.T) {
	mail := "Subject: Hi\r\nContent-Type: text/html\r\n\r\n<html><body><h1>Title</h1><p>Body text</p></body></html>"
	r := NewRegistry(DefaultLimits())
	doc, err := extractBytes(t, r, "m.eml", []byte(mail))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Subject: Hi\n\nTitle\n\nBody text"; doc.Text != want {
		t.Errorf("text %q want %q", doc.Text, want)
	}
}

func TestEmailNestingLimit(t *testing.T) {
	// A message that attaches itself ever deeper stops at MaxDepth.
	inner := "Subject: level\r\n\r\nbottom text"
	for i := 0; i < 6; i++ {
		b := fmt.Sprintf("b%d", i)
		inner = "Subject: level\r\nContent-Type: multipart/mixed; boundary=" + b + "\r\n\r\n--" + b +
			"\r\nContent-Type: text/plain\r\n\r\nbody\r\n--" + b + "\r\n" +
			"Content-Type: message/rfc822\r\nContent-Disposition: attachment; filename=\"fwd.eml\"\r\n\r\n" + inner + "\r\n--" + b + "--\r\n"
	}
	r := NewRegistry(Limits{MaxDepth: 2, MaxFileBytes: 1 << 20})
	doc, err := extractBytes(t, r, "deep.eml", []byte(inner))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Text, "bottom text") {
		t.Error("nesting beyond MaxDepth was extracted")
	}
	if !strings.Contains(strings.Join(doc.Warnings, "\n"), "nested deeper than 2 levels") {
		t.Errorf("warnings %v", doc.Warnings)
	}
}

// An unquoted boundary holding '=' (as Outlook Express wrote them, in a
// message from mikel/mail's fixtures) breaks RFC 2045's token rule; mail
// clients read it anyway, and so must we, instead of indexing raw MIME.
func TestEmailLenientContentType(t *testing.T) {
	raw := "From: a@example.com\r\nSubject: Lenient\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative;\r\n\tboundary=----=_NextPart_000_0093_01C81419.EB75E850\r\n\r\n" +
		"This is a multi-part message in MIME format.\r\n\r\n" +
		"------=_NextPart_000_0093_01C81419.EB75E850\r\n" +
		"Content-Type: text/plain;;\r\n\tcharset=\"windows-1252\"\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"Caf=E9 meeting moved to Thursday.=\r\n Bring the =3D sign.\r\n\r\n" +
		"------=_NextPart_000_0093_01C81419.EB75E850\r\n" +
		"Content-Type: text/html; charset=windows-1252\r\n\r\n<p>html</p>\r\n" +
		"------=_NextPart_000_0093_01C81419.EB75E850--\r\n"
	doc, err := extractBytes(t, NewRegistry(DefaultLimits()), "lenient.eml", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "text", doc.Text, "Café meeting moved to Thursday. Bring the = sign.")
	lacks(t, "text", doc.Text, "Content-Transfer-Encoding", "NextPart", "=3D", "html")
}

func TestParseMediaTypeLenient(t *testing.T) {
	for _, tc := range []struct {
		in, typ string
		params  map[string]string
	}{
		{`text/plain; charset="utf-8"`, "text/plain", map[string]string{"charset": "utf-8"}},
		{`multipart/mixed; boundary=----=_NextPart_1`, "multipart/mixed", map[string]string{"boundary": "----=_NextPart_1"}},
		{`Multipart/Alternative;boundary="a;b";; charset="us-ascii"`, "multipart/alternative", map[string]string{"boundary": "a;b", "charset": "us-ascii"}},
		{`attachment; filename=report 2024.pdf`, "attachment", map[string]string{"filename": "report 2024.pdf"}},
		{``, "", map[string]string{}},
	} {
		typ, params := parseMediaType(tc.in)
		if typ != tc.typ || fmt.Sprint(params) != fmt.Sprint(tc.params) {
			t.Errorf("parseMediaType(%q) = %q %v, want %q %v", tc.in, typ, params, tc.typ, tc.params)
		}
	}
}
