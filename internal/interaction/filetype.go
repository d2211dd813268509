package interaction

import (
	"bytes"
	"encoding/binary"
	"image"
	_ "image/gif" // image.DecodeConfig reads GIF, JPEG and PNG
	_ "image/jpeg"
	_ "image/png"
	"path"
	"strings"
	"unicode/utf8"
)

// contentTypes are the content types the real service gives attachments,
// by their filename's extension (lower case). It names a file's type by
// its name, not its contents (a .mp3.gz is audio/mpeg there:
// discord/discord-api-docs#6785); a name it does not know gets no
// content_type.
var contentTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".avif": "image/avif", ".bmp": "image/bmp", ".svg": "image/svg+xml",
	".ico": "image/x-icon", ".tif": "image/tiff", ".tiff": "image/tiff",
	".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime", ".mkv": "video/x-matroska",
	".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".wav": "audio/x-wav", ".flac": "audio/flac",
	".m4a": "audio/mp4", ".opus": "audio/ogg",
	".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv", ".html": "text/html",
	".htm": "text/html", ".css": "text/css", ".js": "text/javascript", ".xml": "text/xml",
	".log": "text/plain", ".py": "text/x-python", ".json": "application/json",
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip",
	".tar": "application/x-tar", ".7z": "application/x-7z-compressed",
}

// ContentType is the content type of a file named name holding data: by
// the name's extension; text types say their charset, utf-8 when the
// data is valid UTF-8 (the real service: "text/plain; charset=utf-8").
// "" when the extension is unknown.
func ContentType(name string, data []byte) string {
	ct := contentTypes[strings.ToLower(path.Ext(name))]
	if (strings.HasPrefix(ct, "text/") || ct == "application/json") && utf8.Valid(data) {
		ct += "; charset=utf-8"
	}
	return ct
}

// ImageSize reads an image's dimensions from its header: PNG, JPEG and
// GIF through the standard library's decoders, WebP from its RIFF
// chunks. ok is false for anything else (or a damaged header).
func ImageSize(data []byte) (width, height int, ok bool) {
	if w, h, ok := webpSize(data); ok {
		return w, h, true
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// webpSize reads a WebP's canvas size from the first chunk: VP8X (the
// extended format's canvas), VP8L (lossless) or VP8 (lossy), as the
// WebP container specification (RFC 9649) lays them out.
func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	chunk := b[12:16]
	payload := b[20:]
	switch string(chunk) {
	case "VP8X": // 1 byte flags, 3 reserved, 24-bit width-1, 24-bit height-1
		w := int(payload[4]) | int(payload[5])<<8 | int(payload[6])<<16
		h := int(payload[7]) | int(payload[8])<<8 | int(payload[9])<<16
		return w + 1, h + 1, true
	case "VP8L": // signature 0x2f, then 14 bits width-1, 14 bits height-1
		if payload[0] != 0x2f {
			return 0, 0, false
		}
		bits := binary.LittleEndian.Uint32(payload[1:5])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	case "VP8 ": // frame tag (3), start code 9d 01 2a, 14-bit width, 14-bit height
		if payload[3] != 0x9d || payload[4] != 0x01 || payload[5] != 0x2a {
			return 0, 0, false
		}
		w := int(binary.LittleEndian.Uint16(payload[6:8]) & 0x3fff)
		h := int(binary.LittleEndian.Uint16(payload[8:10]) & 0x3fff)
		if w == 0 || h == 0 {
			return 0, 0, false
		}
		return w, h, true
	}
	return 0, 0, false
}
