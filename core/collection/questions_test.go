package collection

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/core/chunk"
	"cairn/core/domain"
	"cairn/core/store"
)

// The fixture: 13 files in four folders, of five formats, modified on known
// days. The questions and their answers below were written from this table
// before the parser existed.
var fixture = []struct {
	path, title, format, date, text string
}{
	{"/kb/Contracts/lease-2023.pdf", "Office Lease", "pdf", "2023-02-10", "Office lease.\nThe annual audit clause applies."},
	{"/kb/Contracts/service.pdf", "Service", "pdf", "2023-07-01", "Service agreement.\nAudit rights of the customer."},
	{"/kb/Contracts/nda.docx", "NDA", "docx", "2024-03-05", "Non-disclosure agreement.\nNo audit."},
	{"/kb/Contracts/old-contract.pdf", "Old", "pdf", "2021-11-20", "Old contract without that word."},
	{"/kb/Invoices/invoice-march.pdf", "March", "pdf", "2024-03-12", "Invoice 1043 for March consulting."},
	{"/kb/Invoices/invoice-april.pdf", "April", "pdf", "2024-04-02", "Invoice 1044 for April consulting."},
	{"/kb/Invoices/invoices.xlsx", "Totals", "xlsx", "2024-03-28", "Invoice list.\nTotals per month."},
	{"/kb/Notes/meeting.md", "Meeting", "markdown", "2024-03-20", "Meeting notes.\nThe audit is scheduled for May.\nInvoice review."},
	{"/kb/Notes/todo.md", "Todo", "markdown", "2023-12-31", "Todo: renew the lease."},
	{"/kb/Notes/grep.txt", "grep", "text", "2022-05-05", "grep -i ignores case."},
	{"/kb/Notes/readme.txt", "Readme", "text", "2024-01-15", "Read me first."},
	{"/kb/Reports/audit-2023.pdf", "Audit 2023", "pdf", "2023-09-30", "Audit report 2023.\nFindings of the audit."},
	{"/kb/Reports/summary.docx", "Summary", "docx", "2023-03-15", "Quarterly summary of invoices and audits."},
}

// now is when the questions are asked: "March" is March 2024.
var now = time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC)

func fixtureDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "c.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, d := range fixture {
		f, err := db.AddFolder(ctx, filepath.Dir(d.path))
		if err != nil {
			t.Fatal(err)
		}
		mt, _ := time.ParseInLocation("2006-01-02", d.date, time.UTC)
		mt = mt.Add(12 * time.Hour)
		if _, _, err := db.PutDocument(ctx, store.Document{FolderID: f.ID, Path: d.path, Hash: "h", Title: d.title,
			Format: d.format, MTimeNS: mt.UnixNano()}, []chunk.Chunk{{Text: d.text, End: len(d.text), LineStart: 1, LineEnd: 3}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// collectionQuestions are questions about the collection with their exact
// answers: the files (under /kb/), in path order.
var collectionQuestions = []struct {
	q    string
	want []string
}{
	{"How many PDFs mention audit?", []string{"Contracts/lease-2023.pdf", "Contracts/service.pdf", "Reports/audit-2023.pdf"}},
	// Whole words: the summary says "invoices", not "invoice".
	{"Which files contain 'invoice'?", []string{"Invoices/invoice-april.pdf", "Invoices/invoice-march.pdf", "Invoices/invoices.xlsx", "Notes/meeting.md"}},
	{"List the files from March 2024", []string{"Contracts/nda.docx", "Invoices/invoice-march.pdf", "Invoices/invoices.xlsx", "Notes/meeting.md"}},
	{"How many files are there?", allFiles()},
	{"How many PDF files are there?", []string{"Contracts/lease-2023.pdf", "Contracts/old-contract.pdf", "Contracts/service.pdf", "Invoices/invoice-april.pdf", "Invoices/invoice-march.pdf", "Reports/audit-2023.pdf"}},
	{"List all markdown files", []string{"Notes/meeting.md", "Notes/todo.md"}},
	{"Which documents mention lease?", []string{"Contracts/lease-2023.pdf", "Notes/todo.md"}},
	{"How many files were modified in 2023?", []string{"Contracts/lease-2023.pdf", "Contracts/service.pdf", "Notes/todo.md", "Reports/audit-2023.pdf", "Reports/summary.docx"}},
	{"List the PDFs from 2024", []string{"Invoices/invoice-april.pdf", "Invoices/invoice-march.pdf"}},
	{"Which files in the Contracts folder mention audit?", []string{"Contracts/lease-2023.pdf", "Contracts/nda.docx", "Contracts/service.pdf"}},
	{"How many documents under Invoices?", []string{"Invoices/invoice-april.pdf", "Invoices/invoice-march.pdf", "Invoices/invoices.xlsx"}},
	{"List files modified since 2024-03-15", []string{"Invoices/invoice-april.pdf", "Invoices/invoices.xlsx", "Notes/meeting.md"}},
	{"Which files were modified before 2022?", []string{"Contracts/old-contract.pdf"}},
	{"How many text files are there?", []string{"Notes/grep.txt", "Notes/readme.txt"}},
	{"List the Word documents", []string{"Contracts/nda.docx", "Reports/summary.docx"}},
	{"How many spreadsheets are there?", []string{"Invoices/invoices.xlsx"}},
	{"Which PDFs mention consulting?", []string{"Invoices/invoice-april.pdf", "Invoices/invoice-march.pdf"}},
	{"How many files mention audit in 2023?", []string{"Contracts/lease-2023.pdf", "Contracts/service.pdf", "Reports/audit-2023.pdf"}},
	{"List the invoices from March", []string{"Invoices/invoice-march.pdf", "Invoices/invoices.xlsx", "Notes/meeting.md"}},
	{"Which files are named invoice?", []string{"Invoices/invoice-april.pdf", "Invoices/invoice-march.pdf", "Invoices/invoices.xlsx"}},
	{"How many files mention grep?", []string{"Notes/grep.txt"}},
	{`Which files mention "audit report"?`, []string{"Reports/audit-2023.pdf"}},
	{"List the files in the Notes folder", []string{"Notes/grep.txt", "Notes/meeting.md", "Notes/readme.txt", "Notes/todo.md"}},
	{"How many PDFs are in the Reports folder?", []string{"Reports/audit-2023.pdf"}},
	{"Which files were modified between 2023-01-01 and 2023-06-30?", []string{"Contracts/lease-2023.pdf", "Reports/summary.docx"}},
	{"How many files mention unicorn?", nil},
	{"List files from 2022", []string{"Notes/grep.txt"}},
	{"Which markdown files mention audit?", []string{"Notes/meeting.md"}},
	{"How many files were modified in December 2023?", []string{"Notes/todo.md"}},
	{"Which files mention the word agreement?", []string{"Contracts/nda.docx", "Contracts/service.pdf"}},
	{"How many files are under /kb/Contracts?", []string{"Contracts/lease-2023.pdf", "Contracts/nda.docx", "Contracts/old-contract.pdf", "Contracts/service.pdf"}},
	{"Show me all files that mention invoice from 2023", nil},
	{"Show me all files that mention invoices from 2023", []string{"Reports/summary.docx"}},
	{"Count the PDF files in the Invoices folder", []string{"Invoices/invoice-april.pdf", "Invoices/invoice-march.pdf"}},
	{"What files mention lease from 2023?", []string{"Contracts/lease-2023.pdf", "Notes/todo.md"}},
}

func allFiles() []string {
	var out []string
	for _, d := range fixture {
		out = append(out, strings.TrimPrefix(d.path, "/kb/"))
	}
	slices.Sort(out)
	return out
}

// ordinaryQuestions are about what the documents say, not about the
// collection: none may be taken for a collection question.
var ordinaryQuestions = []string{
	"How do I make grep ignore case?",
	"Which option makes ls list hidden files?",
	"How many files can tar handle at once?",
	"What is the audit clause in the lease?",
	"List the steps to reset the router",
	"How many days notice does the lease require?",
	"Which invoice was for March consulting?",
	"What files does rsync skip by default?",
	"How do I list files in a directory?",
	"Show me how to configure the network",
	"Which files does the backup include?",
	"When was the audit scheduled?",
	"How many pages does the manual have?",
	"Who signed the NDA in 2024?",
	"Explain the findings of the 2023 audit report",
	"list",
	"How many?",
	"Which files",
	"What is a PDF?",
	"How many PDFs can the printer queue hold?",
}

// TestCollectionQuestions answers every collection question from the
// store and reports the hit rate: a hit is the exact, complete list.
func TestCollectionQuestions(t *testing.T) {
	db := fixtureDB(t)
	hits := 0
	for _, tc := range collectionQuestions {
		q, ok := Parse(tc.q, now, time.UTC, "/home/me")
		if !ok {
			t.Errorf("%q: not recognised as a question about the collection", tc.q)
			continue
		}
		res, err := Answer(context.Background(), OverFile(db), q)
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		var got []string
		for _, f := range res.Files {
			got = append(got, strings.TrimPrefix(f.Path, "/kb/"))
		}
		if !slices.Equal(got, tc.want) || res.Total != len(tc.want) {
			t.Errorf("%q (%s):\n got %d %v\nwant %d %v", tc.q, res.Statement, res.Total, got, len(tc.want), tc.want)
			continue
		}
		hits++
	}
	t.Logf("collection questions: %d of %d answered exactly", hits, len(collectionQuestions))
	if len(collectionQuestions) < 30 {
		t.Errorf("only %d questions", len(collectionQuestions))
	}
}

func TestOrdinaryQuestionsAreNotCollectionQuestions(t *testing.T) {
	for _, q := range ordinaryQuestions {
		if p, ok := Parse(q, now, time.UTC, "/home/me"); ok {
			t.Errorf("%q taken for a collection question: %+v", q, p)
		}
	}
}

func TestStatementSaysHowItWasComputed(t *testing.T) {
	db := fixtureDB(t)
	for q, want := range map[string]string{
		"How many PDFs in the Contracts folder mention audit in 2023?": "2 PDF files in a folder named Contracts contain 'audit' (whole word, any case), modified in 2023.",
		"List the files from March 2024":                               "4 files, modified in March 2024.",
		"How many files are under /kb/Notes?":                          "4 files under /kb/Notes.",
		`Which files mention "audit report"?`:                          "1 file contains 'audit report' (whole words, in a row, any case).",
		"How many files are there?":                                    "13 files in the knowledge base.",
	} {
		p, ok := Parse(q, now, time.UTC, "")
		if !ok {
			t.Errorf("%q not recognised", q)
			continue
		}
		res, err := Answer(context.Background(), OverFile(db), p)
		if err != nil || res.Statement != want {
			t.Errorf("%q: %q, %v; want %q", q, res.Statement, err, want)
		}
	}
	p, _ := Parse("Which files mention audit?", now, time.UTC, "")
	p.Forms = true // the summary's "audits" too
	res, _ := Answer(context.Background(), OverFile(db), p)
	if f := res.Files[len(res.Files)-1]; f.Path != "/kb/Reports/summary.docx" || f.Line != "Quarterly summary of invoices and audits." || f.Passages != 1 {
		t.Errorf("matching line %+v", f)
	}
	if f := res.Files[3]; f.Path != "/kb/Notes/meeting.md" || f.Line != "The audit is scheduled for May." || f.LineNo != 2 {
		t.Errorf("matching line %+v", f)
	}
}

func TestHomeFolderAndRelativeDates(t *testing.T) {
	for q, want := range map[string]domain.Filter{
		"How many files are under ~/Notes?":        {PathPrefixes: []string{"/kb/Notes/"}},
		"List the files under my Reports folder":   {Contains: []string{"/Reports/"}},
		"Which files were modified last month?":    {Since: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)},
		"List the PDFs from September":             {Types: []string{"pdf"}, Since: time.Date(2023, 9, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2023, 10, 1, 0, 0, 0, 0, time.UTC)},
		"How many files were changed this year?":   {Since: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		"Which files were modified after 2024-03?": {Since: time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)},
	} {
		p, ok := Parse(q, now, time.UTC, "/kb")
		if !ok {
			t.Errorf("%q not recognised", q)
			continue
		}
		f := p.Filter
		if !slices.Equal(f.PathPrefixes, want.PathPrefixes) || !slices.Equal(f.Contains, want.Contains) || !slices.Equal(f.Types, want.Types) ||
			!f.Since.Equal(want.Since) || !f.Until.Equal(want.Until) {
			t.Errorf("%q: filter %+v, want %+v", q, f, want)
		}
	}
}
