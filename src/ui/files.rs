//! Files the reader saves and chooses: a download through an object URL, and a chosen file read as text.

/// Saves `text` as a file through a temporary object URL.
pub fn download(name: &str, mime: &str, text: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys_array(text);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(a) = document.create_element("a") {
        if let Ok(a) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlAnchorElement>(a) {
            a.set_href(&url);
            a.set_download(name);
            a.click();
        }
    }
    // The URL is not revoked at once: Chromium may still be reading it when click() returns.
}

/// Why a chosen file was not read.
pub enum FileRefusal {
    /// Larger than the reader allows: its size in bytes.
    TooLarge(u64),
    Unreadable,
}

/// Reads the file chosen in the `<input type=file>` that `e` came from, as text, unless it is larger than `max`
/// bytes; `done` hears the text or why not. The input is emptied once reading starts, so that choosing the same
/// file again reads it again.
pub fn read_chosen_file(
    e: &web_sys::Event,
    max: f64,
    done: impl FnOnce(Result<String, FileRefusal>) + 'static,
) {
    use wasm_bindgen::JsCast;
    let Some(input) = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    if file.size() > max {
        // Whole bytes: formatting the f64 itself would pull Rust's float printer into the page.
        return done(Err(FileRefusal::TooLarge(file.size() as u64)));
    }
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let reader_in = reader.clone();
    let onload = wasm_bindgen::closure::Closure::once_into_js(move || {
        done(
            reader_in
                .result()
                .ok()
                .and_then(|v| v.as_string())
                .ok_or(FileRefusal::Unreadable),
        )
    });
    reader.set_onload(Some(onload.unchecked_ref()));
    let _ = reader.read_as_text(&file);
    input.set_value("");
}

fn js_sys_array(text: &str) -> wasm_bindgen::JsValue {
    let array = js_sys::Array::new();
    array.push(&wasm_bindgen::JsValue::from_str(text));
    array.into()
}
