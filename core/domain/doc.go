// Package domain is the vocabulary every layer of Cairn shares: a
// knowledge base's folders and their issues, indexing runs and their
// progress, the filter a search narrows to and the hits it gets back, the
// chunks a result cites, conversations and their turns, relevance
// judgments, and a team cluster's removals. It holds data, not behaviour:
// pure Go, no SQL, no cgo, no network, importing nothing of Cairn's.
//
// core/store (the SQLite file), core/teamstore (a team's cluster) and
// core/ingest (the indexer) produce these values; the window (ui, panels),
// the service (serve) and the retrieval packages (search, collection,
// answer) read them without linking SQLite, the cluster's client or the
// indexer.
package domain
