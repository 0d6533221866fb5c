package ocr

// A page is blank, and costs no Tesseract instance, when fewer than one of
// its pixels in inkShare is darker than mid-grey (cairn_ink's threshold,
// 128): a few specks of a scan, the empty left-hand page before a chapter.
// It is judged on the decoded image, whatever its format (pdftoppm's
// "grey" PNG pages are RGB, which an earlier check of grey PNGs alone
// never saw).
const inkShare = 10_000
