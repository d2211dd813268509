// Package doclinks checks the links between the README and the pages of
// docs/: every relative link names a file of the repository, and every
// #fragment a heading of its page, as GitHub renders headings into
// anchors. The reference moves between pages; this keeps the links that
// point into it from going stale.
package doclinks
