package msgcheck

import "github.com/slashd/slashd/internal/form"

// The Components V2 layout and content components
// (components/reference.mdx: Section, Text Display, Thumbnail, Media
// Gallery, File, Separator, Container).

// section checks a section: 1–3 text displays and an accessory, a button
// or a thumbnail.
func (t *tree) section(o form.Object) {
	if o.Require("components") {
		if children, ok := o.List("components"); ok {
			if len(children) < 1 || len(children) > maxSectionTexts {
				o.At("components").Add(form.CodeBadLength, form.MsgBadLength(1, maxSectionTexts))
			} else {
				t.list(children, sectionTypes, o.At("components"))
			}
		}
	}
	if !o.Require("accessory") {
		return
	}
	v, _ := o.Value("accessory")
	t.tally(o.At("accessory"))
	t.component(v, accessoryTypes, o.At("accessory"))
}

// textDisplay checks a text display's content (1–4000 characters) and
// adds it to the message's text total.
func (t *tree) textDisplay(o form.Object) {
	if !o.Require("content") {
		return
	}
	if s, ok := o.StrLen("content", 1, maxTextDisplay); ok {
		t.text += textLen(s)
	}
}

// thumbnail checks a thumbnail: media, description up to 1024, spoiler.
func thumbnail(o form.Object) {
	if o.Require("media") {
		mediaItem(o, "media", mediaSchemes)
	}
	maxLen(o, "description", maxMediaDescription)
	o.Bool("spoiler")
}

// mediaGallery checks a gallery: 1–10 items, each a media item with an
// optional description and spoiler.
func mediaGallery(o form.Object) {
	if !o.Require("items") {
		return
	}
	items, ok := o.List("items")
	if !ok {
		return
	}
	if len(items) < 1 || len(items) > maxGalleryItems {
		o.At("items").Add(form.CodeBadLength, form.MsgBadLength(1, maxGalleryItems))
		return
	}
	for i, v := range items {
		item, ok := form.AsObject(v, o.At("items", i))
		if !ok {
			continue
		}
		if item.Require("media") {
			mediaItem(item, "media", mediaSchemes)
		}
		maxLen(item, "description", maxMediaDescription)
		item.Bool("spoiler")
	}
}

// file checks a file component: an attachment:// reference and spoiler.
func file(o form.Object) {
	if o.Require("file") {
		mediaItem(o, "file", fileSchemes)
	}
	o.Bool("spoiler")
}

// mediaItem checks an unfurled media item: only its url is the app's,
// a well formed URL of one of schemes.
func mediaItem(o form.Object, key string, schemes []string) {
	m, ok := object(o, key)
	if !ok || !m.Require("url") {
		return
	}
	if s, ok := m.Str("url"); ok {
		checkURL(m.At("url"), s, schemes)
	}
}

// container checks a container: its children (of the types a container
// holds), accent_color (null or 0x000000–0xFFFFFF) and spoiler.
func (t *tree) container(o form.Object) {
	if o.Require("components") {
		if children, ok := o.List("components"); ok {
			if len(children) < 1 {
				o.At("components").Add(form.CodeMinLength, form.MsgMinLength(1))
			}
			t.list(children, containerTypes, o.At("components"))
		}
	}
	o.IntIn("accent_color", 0, maxAccentColor)
	o.Bool("spoiler")
}
