package extract

import (
	"context"
	"os"
	"strings"
	"testing"

	"cairn/core/extract/extracttest"
)

func TestEML(t *testing.T) {
	d := mustExtract(t, "message.eml")
	if d.Title != "Ridge survey – results" {
		t.Errorf("title %q", d.Title)
	}
	equalStrings(t, "units", unitSummary(d), []string{
		"message 1 Ridge survey – results",
		"attachment 2 report.docx",
		"page 1 report.pdf 1", "page 2 report.pdf 2", "page 3 report.pdf 3",
		"message 1 forwarded message.eml Permit granted",
	})
	if got, want := unitText(d, 0), "From: Ana Survey <ana@example.org>\nTo: Ben Draughtsman <ben@example.org>\n"+
		"Date: Mon, 04 Mar 2024 09:15:00 +0000\nSubject: Ridge survey – results\n\n"+
		"Hi Ben,\n\nThe ridge survey is done; the report and the deck are attached.\n\nAna"; got != want {
		t.Errorf("message:\n got %q\nwant %q", got, want)
	}
	contains(t, "docx attachment", unitText(d, 1), "Attachment: report.docx\nIntroduction", reportTable)
	contains(t, "pdf attachment page 2", unitText(d, 3), "Findings")
	contains(t, "forwarded", unitText(d, 5), "Permit 2024-117 is granted for the eastern ridge.")
	// The attachments' headings are carried over at their new offsets.
	contains(t, "headings", strings.Join(headingSummary(d), "\n"), "2 Measurements")
}

func TestMbox(t *testing.T) {
	d := mustExtract(t, "mailbox.mbox")
	equalStrings(t, "units", unitSummary(d), []string{"message 1 Fuel receipts", "message 2 Weather", "message 3 Tape measure"})
	// mboxrd quotes a body line starting with "From " as ">From "; unquoted.
	contains(t, "message 1", unitText(d, 0), "Subject: Fuel receipts\n\nFuel for March cost 1,234.50 euros.\nFrom the depot on the hill.")
	contains(t, "message 3", unitText(d, 2), "Bring the fifty metre tape to the north cairn.")
}

func TestMSG(t *testing.T) {
	d := mustExtract(t, "outlook.msg")
	if d.Title != "test" || d.Format != "msg" {
		t.Errorf("title %q format %q", d.Title, d.Format)
	}
	equalStrings(t, "units", unitSummary(d), []string{"message 1 test"})
	contains(t, "message", unitText(d, 0),
		"From: Lehane, Richard <Richard.Lehane@records.nsw.gov.au>\nTo: Lehane, Richard\nDate: Mon, 18 Nov 2013 08:26:09 +1100\nSubject: test\n\nTest",
		"Richard Lehane | Project Officer, Digital Archives")
	// Its attachments are a legacy .doc (skipped with the reason) and a logo.
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "attachment test.doc skipped: unsupported file type: doc: legacy Office 97-2003")
}

func TestEmailNestingLimitOneLevel(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxDepth = 1 // one level: the forwarded message's own attachments are refused
	raw := "From: a@example.org\nSubject: outer\nContent-Type: multipart/mixed; boundary=B\n\n" +
		"--B\nContent-Type: text/plain\n\nouter body\n" +
		"--B\nContent-Type: message/rfc822\nContent-Disposition: attachment; filename=inner.eml\n\n" +
		"From: b@example.org\nSubject: inner\nContent-Type: multipart/mixed; boundary=C\n\n" +
		"--C\nContent-Type: text/plain\n\ninner body\n" +
		"--C\nContent-Type: text/plain; name=deep.txt\nContent-Disposition: attachment; filename=deep.txt\n\ndeepest text\n--C--\n" +
		"--B--\n"
	d, err := NewRegistry(lim).Extract(context.Background(), fileOf("nest.eml", []byte(raw)))
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, d)
	contains(t, "text", d.Text, "outer body", "inner body")
	lacks(t, "text", d.Text, "deepest text")
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "deep.txt skipped: nested too deeply: attachments or embedded files nested deeper than 1 levels")
}

// TestMailboxIsStreamed: a mailbox is read one message at a time, each part
// within its bound: an attachment larger than maxAttachment is skipped
// with a warning and the messages after it are read (a 200 MB attachment
// took 0.9 GB when the mailbox was read whole), with CRLF line ends and a
// separator inside no blank line left alone (issue 43, item 2).
func TestMailboxIsStreamed(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/archive.mbox"
	if err := extracttest.MboxWithAttachment(path, maxAttachment+(1<<20)); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\r\nFrom b@example.org Tue Jan  6 10:00:00 2026\r\nFrom: b@example.org\r\nSubject: after the archive\r\n\r\n" +
		"The tape measure is in the van.\r\nFrom the depot, not a separator.\r\n>From quoted.\r\n")
	f.Close()
	b, _ := os.ReadFile(path)
	var d *Document
	peak := peakHeap(func() { d, err = NewRegistry(DefaultLimits()).Extract(t.Context(), fileOf("archive.mbox", b)) })
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "units", unitSummary(d), []string{"message 1 the quarterly archive", "message 2 after the archive"})
	contains(t, "message 2", unitText(d, 1), "The tape measure is in the van.\nFrom the depot, not a separator.\nFrom quoted.")
	contains(t, "warnings", strings.Join(d.Warnings, "\n"), "message 1: attachment archive.bin skipped: larger than 32.0 MB")
	// The file's own 44 MB are live throughout, and the attachment's first
	// 32 MB while it is read (in a buffer that doubles as it grows, the
	// smaller ones not yet collected); a copy of the file would not be.
	if peak > int64ToU(int64(len(b))+3*maxAttachment) {
		t.Errorf("live heap peaked at %d MB for a %d MB mailbox", peak>>20, len(b)>>20)
	}
}

func int64ToU(n int64) uint64 { return uint64(n) }
