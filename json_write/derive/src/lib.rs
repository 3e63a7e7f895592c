//! `#[derive(WriteJson)]`: see the `json_write` crate. The generated `write_json` appends the text serde's own
//! derive would give through `serde_json` (compact), reading the same `#[serde(...)]` attributes; an attribute
//! whose effect it does not reproduce is a compile error, so the two derives cannot silently disagree.

use proc_macro::TokenStream;
use proc_macro2::{Literal, Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Error, Fields, Ident, LitStr, parse_macro_input};

#[proc_macro_derive(WriteJson, attributes(serde, json))]
pub fn derive_write_json(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).unwrap_or_else(Error::into_compile_error).into()
}

/// `#[derive(TagFirst)]`: serde's `Deserialize` for an internally tagged enum, its tag read first when it comes
/// first (see `json_write::tag_first`). Emits two `remote` twins of the enum for serde's own derive, each
/// variant and field with its `#[serde]` attributes only: one externally tagged (a variant by its name, the
/// rest of the object its content) and one as written (the buffered read, for the tag anywhere else).
#[proc_macro_derive(TagFirst, attributes(serde))]
pub fn derive_tag_first(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_tag_first(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

fn expand_tag_first(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(Error::new_spanned(
            &input.generics,
            "TagFirst: a generic enum is not supported",
        ));
    }
    let Data::Enum(data) = &input.data else {
        return Err(Error::new(
            Span::call_site(),
            "TagFirst: only an internally tagged enum",
        ));
    };
    // The container's attributes: `tag` (required) and `rename_all`; anything else would need more than the two
    // twins copy, so it is refused.
    let mut tag = None;
    let mut rename_all = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") {
                tag = Some(meta.value()?.parse::<LitStr>()?);
            } else if meta.path.is_ident("rename_all") {
                rename_all = Some(meta.value()?.parse::<LitStr>()?);
            } else {
                return Err(meta.error("TagFirst takes only `tag` and `rename_all` on the enum"));
            }
            Ok(())
        })?;
    }
    let Some(tag) = tag else {
        return Err(Error::new(
            Span::call_site(),
            "TagFirst needs `#[serde(tag = \"...\")]`",
        ));
    };
    let rename_all = rename_all.map(|rule| quote! { rename_all = #rule, });
    let serde_only = |attrs: &[syn::Attribute]| -> Vec<syn::Attribute> {
        attrs
            .iter()
            .filter(|a| a.path().is_ident("serde"))
            .cloned()
            .collect()
    };
    let mut variants = Vec::new();
    for variant in &data.variants {
        if matches!(&variant.fields, Fields::Unnamed(f) if f.unnamed.len() != 1) {
            return Err(Error::new_spanned(
                variant,
                "an internally tagged enum cannot hold a tuple variant",
            ));
        }
        let mut variant = variant.clone();
        variant.attrs = serde_only(&variant.attrs);
        variant.discriminant = None;
        for field in variant.fields.iter_mut() {
            field.attrs = serde_only(&field.attrs);
        }
        variants.push(variant);
    }
    let remote = LitStr::new(&name.to_string(), name.span());
    let expecting = LitStr::new(&format!("internally tagged enum {name}"), name.span());
    Ok(quote! {
        const _: () = {
            #[derive(::serde::Deserialize)]
            #[serde(remote = #remote, #rename_all)]
            #[allow(dead_code, clippy::enum_variant_names)]
            enum ByName { #(#variants),* }

            #[derive(::serde::Deserialize)]
            #[serde(remote = #remote, tag = #tag, #rename_all)]
            #[allow(dead_code, clippy::enum_variant_names)]
            enum Tagged { #(#variants),* }

            impl<'de> ::json_write::tag_first::TagFirst<'de> for #name {
                const TAG: &'static str = #tag;
                const EXPECTING: &'static str = #expecting;

                fn by_name<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    ByName::deserialize(deserializer)
                }

                fn tagged<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    Tagged::deserialize(deserializer)
                }
            }

            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    ::json_write::tag_first::deserialize(deserializer)
                }
            }
        };
    })
}

/// serde's `rename_all` rules (serde_derive's `case.rs`), for variants and for fields.
#[derive(Clone, Copy)]
enum Rule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Rule {
    fn parse(s: &LitStr) -> syn::Result<Rule> {
        Ok(match s.value().as_str() {
            "lowercase" => Rule::Lower,
            "UPPERCASE" => Rule::Upper,
            "PascalCase" => Rule::Pascal,
            "camelCase" => Rule::Camel,
            "snake_case" => Rule::Snake,
            "SCREAMING_SNAKE_CASE" => Rule::ScreamingSnake,
            "kebab-case" => Rule::Kebab,
            "SCREAMING-KEBAB-CASE" => Rule::ScreamingKebab,
            other => return Err(Error::new(s.span(), format!("unknown rename rule `{other}`"))),
        })
    }

    /// A variant's name (written in PascalCase in Rust).
    fn variant(self, name: &str) -> String {
        match self {
            Rule::Pascal => name.to_owned(),
            Rule::Lower => name.to_ascii_lowercase(),
            Rule::Upper => name.to_ascii_uppercase(),
            Rule::Camel => name[..1].to_ascii_lowercase() + &name[1..],
            Rule::Snake => {
                let mut snake = String::new();
                for (i, ch) in name.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Rule::ScreamingSnake => Rule::Snake.variant(name).to_ascii_uppercase(),
            Rule::Kebab => Rule::Snake.variant(name).replace('_', "-"),
            Rule::ScreamingKebab => Rule::ScreamingSnake.variant(name).replace('_', "-"),
        }
    }

    /// A field's name (written in snake_case in Rust).
    fn field(self, name: &str) -> String {
        match self {
            Rule::Lower | Rule::Snake => name.to_owned(),
            Rule::Upper | Rule::ScreamingSnake => name.to_ascii_uppercase(),
            Rule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in name.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Rule::Camel => {
                let pascal = Rule::Pascal.field(name);
                pascal[..1].to_ascii_lowercase() + &pascal[1..]
            }
            Rule::Kebab => name.replace('_', "-"),
            Rule::ScreamingKebab => Rule::ScreamingSnake.field(name).replace('_', "-"),
        }
    }
}

#[derive(Default)]
struct Container {
    rename_all: Option<Rule>,
    tag: Option<String>,
    content: Option<String>,
    untagged: bool,
    transparent: bool,
}

#[derive(Default)]
struct Member {
    rename: Option<String>,
    skip: bool,
    /// `skip_serializing_if`: the path of a `fn(&T) -> bool`.
    skip_if: Option<syn::ExprPath>,
    /// `flatten`: the member's own members are written in its place (its type implements `WriteJsonMembers`).
    flatten: bool,
}

fn container_attrs(input: &DeriveInput) -> syn::Result<Container> {
    let mut c = Container::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let p = &meta.path;
            if p.is_ident("rename_all") {
                c.rename_all = Some(Rule::parse(&meta.value()?.parse()?)?);
            } else if p.is_ident("tag") {
                c.tag = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if p.is_ident("content") {
                c.content = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if p.is_ident("untagged") {
                c.untagged = true;
            } else if p.is_ident("transparent") {
                c.transparent = true;
            } else if p.is_ident("deny_unknown_fields") || p.is_ident("default") {
                // Deserialisation only.
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<LitStr>()?;
                }
            } else if p.is_ident("rename") || p.is_ident("bound") {
                // The type's own name and trait bounds do not show in the text.
                meta.value()?.parse::<LitStr>()?;
            } else {
                return Err(meta.error("WriteJson does not reproduce this serde attribute"));
            }
            Ok(())
        })?;
    }
    Ok(c)
}

fn member_attrs(attrs: &[syn::Attribute]) -> syn::Result<Member> {
    let mut m = Member::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let p = &meta.path;
            if p.is_ident("rename") {
                m.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if p.is_ident("skip") || p.is_ident("skip_serializing") {
                m.skip = true;
            } else if p.is_ident("skip_serializing_if") {
                m.skip_if = Some(meta.value()?.parse::<LitStr>()?.parse()?);
            } else if p.is_ident("flatten") {
                m.flatten = true;
            } else if p.is_ident("alias") {
                meta.value()?.parse::<LitStr>()?;
            } else if p.is_ident("default") || p.is_ident("skip_deserializing") {
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<LitStr>()?;
                }
            } else {
                return Err(meta.error("WriteJson does not reproduce this serde attribute"));
            }
            Ok(())
        })?;
    }
    Ok(m)
}

/// `s` as JSON string text, escaped as serde_json escapes it.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The JSON name of a field or variant: `r#` stripped, `rename` first, else the container's rule.
fn json_name(ident: &Ident, member: &Member, rule: Option<Rule>, variant: bool) -> String {
    if let Some(name) = &member.rename {
        return name.clone();
    }
    let raw = ident.to_string();
    let name = raw.strip_prefix("r#").unwrap_or(&raw);
    match rule {
        Some(rule) if variant => rule.variant(name),
        Some(rule) => rule.field(name),
        None => name.to_owned(),
    }
}

/// Pieces of output: constant text is merged into one `push_str`.
#[derive(Default)]
struct Writer {
    code: Vec<Tokens>,
    pending: String,
    /// Writing `write_json_shared`: members pass `shared` on, and `#[json(shared)]` members go through it.
    shared: bool,
}

impl Writer {
    fn text(&mut self, s: &str) {
        self.pending.push_str(s);
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.pending);
        if text.chars().count() == 1 {
            let ch = Literal::character(text.chars().next().expect("one character"));
            self.code.push(quote! { out.push(#ch); });
        } else {
            let text = Literal::string(&text);
            self.code.push(quote! { out.push_str(#text); });
        }
    }

    /// Writes `value` (an expression of a `WriteJson` type).
    fn value(&mut self, value: Tokens) {
        self.flush();
        if self.shared {
            self.code
                .push(quote! { ::json_write::WriteJson::write_json_shared(#value, out, shared); });
        } else {
            self.code
                .push(quote! { ::json_write::WriteJson::write_json(#value, out); });
        }
    }

    /// Writes a member: through `shared` if it is marked `#[json(shared)]` and this is `write_json_shared`.
    fn member(&mut self, member: &Field) {
        if self.shared && member.shared {
            self.flush();
            let value = &member.value;
            self.code.push(quote! { shared.write(#value, out); });
        } else {
            self.value(member.value.clone());
        }
    }

    /// A writer for a part of this one's output, in the same mode.
    fn part(&self) -> Writer {
        Writer {
            shared: self.shared,
            ..Writer::default()
        }
    }

    fn members_of(&mut self, value: Tokens) {
        self.flush();
        self.code
            .push(quote! { ::json_write::WriteJsonMembers::write_json_members(#value, out); });
    }

    fn finish(mut self) -> Tokens {
        self.flush();
        let code = self.code;
        quote! { #(#code)* }
    }
}

/// The named fields of a struct or struct variant that are written, with their JSON names and the expression
/// that borrows each.
fn named_members(
    fields: &syn::FieldsNamed,
    rule: Option<Rule>,
    access: &dyn Fn(&Ident) -> Tokens,
) -> syn::Result<Vec<Field>> {
    let mut members = Vec::new();
    for field in &fields.named {
        let attrs = member_attrs(&field.attrs)?;
        let shared = shared_attr(&field.attrs)?;
        if shared && attrs.flatten {
            return Err(Error::new_spanned(
                field,
                "WriteJson: `#[json(shared)]` with `flatten` is not supported",
            ));
        }
        if attrs.skip {
            continue;
        }
        let ident = field.ident.as_ref().expect("named field");
        if attrs.flatten && attrs.skip_if.is_some() {
            return Err(Error::new_spanned(
                field,
                "WriteJson: `flatten` with `skip_serializing_if` is not supported",
            ));
        }
        members.push(Field {
            name: json_name(ident, &attrs, rule, false),
            value: access(ident),
            skip_if: attrs.skip_if,
            flatten: attrs.flatten,
            shared,
        });
    }
    Ok(members)
}

/// Whether a member is marked `#[json(shared)]`: the same for every viewer of a state, written once for all of
/// them by `write_json_shared` (`json_write::Shared`). Only on a struct's named fields.
fn shared_attr(attrs: &[syn::Attribute]) -> syn::Result<bool> {
    let mut shared = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("json")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("shared") {
                shared = true;
                Ok(())
            } else {
                Err(meta.error("WriteJson: the one `json` attribute is `#[json(shared)]`"))
            }
        })?;
    }
    Ok(shared)
}

/// A member as written: its JSON name, the expression that borrows it, and its `skip_serializing_if`.
#[derive(Clone)]
struct Field {
    name: String,
    value: Tokens,
    skip_if: Option<syn::ExprPath>,
    flatten: bool,
    /// `#[json(shared)]`.
    shared: bool,
}

/// `{"a":..,"b":..}` (or the members alone, each led by a comma, when `open` is false). A member with
/// `skip_serializing_if` is written only when its test says so; the comma before a member is constant text
/// unless every member before it may be skipped, when a flag decides it at run time (as serde does).
fn write_object(w: &mut Writer, members: &[Field], open: bool) -> syn::Result<()> {
    if open {
        w.text("{");
    }
    // Whether a member surely precedes this one (then the comma is certain).
    let mut surely_one = !open;
    let needs_flag = open && members.iter().any(|m| m.skip_if.is_some());
    if needs_flag {
        w.flush();
        w.code.push(quote! { let mut first = true; });
    }
    for member in members {
        let key = json_string(&member.name) + ":";
        let value = &member.value;
        if member.flatten {
            // Its members, each led by a comma: something must surely be written before them.
            if !surely_one {
                return Err(Error::new(
                    Span::call_site(),
                    format!(
                        "WriteJson: the flattened member `{}` needs a member that is always written before it",
                        member.name
                    ),
                ));
            }
            w.members_of(value.clone());
            continue;
        }
        if member.skip_if.is_none() && surely_one {
            w.text(",");
            w.text(&key);
            w.member(member);
            continue;
        }
        // A member that may be skipped, or the first that is not when every one before it may be.
        let mut m = w.part();
        if surely_one {
            m.text(",");
            m.text(&key);
        } else {
            let with_comma = Literal::string(&format!(",{key}"));
            let without = Literal::string(&key);
            if needs_flag {
                m.code.push(quote! {
                    out.push_str(if first { #without } else { #with_comma });
                    first = false;
                });
            } else {
                // `open` with no member that may be skipped: the first member.
                m.text(&key);
            }
        }
        m.member(member);
        let code = m.finish();
        w.flush();
        match &member.skip_if {
            Some(test) => w.code.push(quote! { if !#test(#value) { #code } }),
            None => {
                w.code.push(code);
                surely_one = true;
            }
        }
    }
    if needs_flag {
        w.flush();
        w.code.push(quote! { let _ = first; });
    }
    if open {
        w.text("}");
    }
    Ok(())
}

fn write_array(w: &mut Writer, values: &[Tokens]) {
    w.text("[");
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            w.text(",");
        }
        w.value(value.clone());
    }
    w.text("]");
}

fn unnamed_values(fields: &syn::FieldsUnnamed, access: &dyn Fn(usize) -> Tokens) -> syn::Result<Vec<Tokens>> {
    let mut values = Vec::new();
    for (i, field) in fields.unnamed.iter().enumerate() {
        if !member_attrs(&field.attrs)?.skip {
            values.push(access(i));
        }
    }
    Ok(values)
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let c = container_attrs(input)?;
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(::json_write::WriteJson));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let mut members_impl = Tokens::new();
    // `write_json_shared`, for a struct with named members (everything else keeps the default).
    let mut shared_impl = Tokens::new();

    let body = match &input.data {
        Data::Struct(data) => {
            if c.tag.is_some() || c.untagged {
                return Err(Error::new(
                    Span::call_site(),
                    "WriteJson: a tagged struct is not supported",
                ));
            }
            let mut w = Writer::default();
            match &data.fields {
                Fields::Named(fields) => {
                    let members = named_members(fields, c.rename_all, &|f| quote! { &self.#f })?;
                    if c.transparent {
                        let [member] = members.as_slice() else {
                            return Err(Error::new(Span::call_site(), "transparent needs one field"));
                        };
                        if member.shared {
                            return Err(Error::new(
                                Span::call_site(),
                                "`#[json(shared)]` in a transparent struct",
                            ));
                        }
                        w.value(member.value.clone());
                    } else {
                        write_object(&mut w, &members, true)?;
                        let mut sw = Writer {
                            shared: true,
                            ..Writer::default()
                        };
                        write_object(&mut sw, &members, true)?;
                        let shared_code = sw.finish();
                        shared_impl = quote! {
                            #[inline]
                            fn write_json_shared(
                                &self,
                                out: &mut ::std::string::String,
                                shared: &mut ::json_write::Shared,
                            ) {
                                #shared_code
                            }
                        };
                        let mut m = Writer::default();
                        write_object(&mut m, &members, false)?;
                        let members_code = m.finish();
                        members_impl = quote! {
                            impl #impl_generics ::json_write::WriteJsonMembers for #name #ty_generics #where_clause {
                                #[inline]
                                fn write_json_members(&self, out: &mut ::std::string::String) {
                                    #members_code
                                }
                            }
                        };
                    }
                }
                Fields::Unnamed(fields) => {
                    let values = unnamed_values(fields, &|i| {
                        let i = syn::Index::from(i);
                        quote! { &self.#i }
                    })?;
                    if fields.unnamed.len() == 1 || c.transparent {
                        let [value] = values.as_slice() else {
                            return Err(Error::new(Span::call_site(), "a newtype needs its field"));
                        };
                        w.value(value.clone());
                    } else {
                        write_array(&mut w, &values);
                    }
                }
                Fields::Unit => w.text("null"),
            }
            w.finish()
        }
        Data::Enum(data) => {
            let mut arms = Vec::new();
            let mut member_arms = Vec::new();
            for variant in &data.variants {
                let attrs = member_attrs(&variant.attrs)?;
                let v = &variant.ident;
                if attrs.skip {
                    let message = format!("the variant {name}::{v} is not serialised");
                    let pattern = match &variant.fields {
                        Fields::Named(_) => quote! { Self::#v { .. } },
                        Fields::Unnamed(_) => quote! { Self::#v(..) },
                        Fields::Unit => quote! { Self::#v },
                    };
                    arms.push(quote! { #pattern => panic!(#message), });
                    continue;
                }
                let tag_value = json_string(&json_name(v, &attrs, c.rename_all, true));
                let mut w = Writer::default();
                // The variant's own content: its pattern and how its value is written.
                let (pattern, content): (Tokens, Content) = match &variant.fields {
                    Fields::Unit => (quote! { Self::#v }, Content::Unit),
                    Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                        (quote! { Self::#v(f0) }, Content::Newtype(quote! { f0 }))
                    }
                    Fields::Unnamed(fields) => {
                        let binds: Vec<Ident> =
                            (0..fields.unnamed.len()).map(|i| format_ident!("f{i}")).collect();
                        let values = unnamed_values(fields, &|i| {
                            let b = &binds[i];
                            quote! { #b }
                        })?;
                        (quote! { Self::#v(#(#binds),*) }, Content::Tuple(values))
                    }
                    Fields::Named(fields) => {
                        let binds: Vec<&Ident> = fields
                            .named
                            .iter()
                            .map(|f| f.ident.as_ref().expect("named"))
                            .collect();
                        // Variant fields are not renamed by the enum's `rename_all` (that is `rename_all_fields`).
                        let members = named_members(fields, None, &|f| quote! { #f })?;
                        if members.iter().any(|m| m.shared) {
                            return Err(Error::new_spanned(
                                fields,
                                "WriteJson: `#[json(shared)]` is for a struct's members, not a variant's",
                            ));
                        }
                        (quote! { Self::#v { #(#binds),* } }, Content::Struct(members))
                    }
                };
                match (&c.tag, &c.content, c.untagged) {
                    (_, _, true) => content.write(&mut w)?,
                    (Some(tag), Some(content_key), false) => {
                        w.text("{");
                        w.text(&json_string(tag));
                        w.text(":");
                        w.text(&tag_value);
                        if !matches!(content, Content::Unit) {
                            w.text(",");
                            w.text(&json_string(content_key));
                            w.text(":");
                            content.write(&mut w)?;
                        }
                        w.text("}");
                    }
                    (Some(tag), None, false) => {
                        // The tag and the variant's members, each led by a comma: the object's inside, and
                        // what the enum writes where a struct flattens it (`WriteJsonMembers`).
                        let mut m = Writer::default();
                        m.text(",");
                        m.text(&json_string(tag));
                        m.text(":");
                        m.text(&tag_value);
                        match &content {
                            Content::Unit => {}
                            Content::Newtype(value) => m.members_of(value.clone()),
                            Content::Struct(members) => write_object(&mut m, members, false)?,
                            Content::Tuple(_) => {
                                return Err(Error::new_spanned(
                                    variant,
                                    "an internally tagged enum cannot hold a tuple variant",
                                ));
                            }
                        }
                        let members_code = m.finish();
                        member_arms.push(quote! { #pattern => { #members_code } });
                        w.text("{");
                        w.text(&json_string(tag));
                        w.text(":");
                        w.text(&tag_value);
                        match &content {
                            Content::Unit => {}
                            Content::Newtype(value) => w.members_of(value.clone()),
                            Content::Struct(members) => write_object(&mut w, members, false)?,
                            Content::Tuple(_) => unreachable!("refused above"),
                        }
                        w.text("}");
                    }
                    (None, Some(_), false) => {
                        return Err(Error::new(Span::call_site(), "`content` needs `tag`"));
                    }
                    (None, None, false) => match &content {
                        Content::Unit => w.text(&tag_value),
                        _ => {
                            w.text("{");
                            w.text(&tag_value);
                            w.text(":");
                            content.write(&mut w)?;
                            w.text("}");
                        }
                    },
                }
                let code = w.finish();
                arms.push(quote! { #pattern => { #code } });
            }
            if c.tag.is_some() && c.content.is_none() && !c.untagged {
                let skipped = data.variants.len() != member_arms.len();
                let rest = skipped.then(|| quote! { _ => panic!("a variant that is not serialised"), });
                members_impl = quote! {
                    impl #impl_generics ::json_write::WriteJsonMembers for #name #ty_generics #where_clause {
                        fn write_json_members(&self, out: &mut ::std::string::String) {
                            #[allow(unused_variables)]
                            match self { #(#member_arms)* #rest }
                        }
                    }
                };
            }
            quote! {
                #[allow(unused_variables)]
                match self { #(#arms)* }
            }
        }
        Data::Union(_) => {
            return Err(Error::new(
                Span::call_site(),
                "WriteJson: unions are not supported",
            ));
        }
    };

    Ok(quote! {
        impl #impl_generics ::json_write::WriteJson for #name #ty_generics #where_clause {
            #[inline]
            fn write_json(&self, out: &mut ::std::string::String) {
                #body
            }
            #shared_impl
        }
        #members_impl
    })
}

/// What a variant holds.
enum Content {
    Unit,
    Newtype(Tokens),
    Tuple(Vec<Tokens>),
    Struct(Vec<Field>),
}

impl Content {
    /// The variant's value alone, as serde writes it inside a tag (unit as `null`).
    fn write(&self, w: &mut Writer) -> syn::Result<()> {
        match self {
            Content::Unit => w.text("null"),
            Content::Newtype(value) => w.value(value.clone()),
            Content::Tuple(values) => write_array(w, values),
            Content::Struct(members) => write_object(w, members, true)?,
        }
        Ok(())
    }
}
