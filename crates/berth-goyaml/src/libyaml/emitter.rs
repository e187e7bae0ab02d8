//! The emitter (emitterc.go): writes events as YAML text, choosing scalar styles, quoting, folding at the line
//! width and indentation exactly as go-yaml does. yaml.v2 v2.4.3 is the base; `v3` switches on the yaml.v3 v3.0.4
//! differences Helm's `toYamlPretty` shows (sequence indentation, tabs forcing quotes, no line folding by default).
//! Anchors, tags and directives are not supported: Helm's encoders never produce them.

use std::collections::VecDeque;

use super::chars::{at, is_blank, is_blankz, is_bom, is_break, is_printable, is_space, width};
use super::{CollectionStyle, Event, EventType, ScalarStyle};

/// Emitter states (`yaml_emitter_state_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    FirstDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    FlowSequenceFirstItem,
    FlowSequenceItem,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingSimpleValue,
    FlowMappingValue,
    BlockSequenceFirstItem,
    BlockSequenceItem,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingSimpleValue,
    BlockMappingValue,
    End,
}

/// What `yaml_emitter_analyze_scalar` found about the current scalar.
#[derive(Debug, Clone, Default)]
struct ScalarData {
    value: Vec<u8>,
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
    style: ScalarStyle,
}

/// Emitter settings Helm's encoders use.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// yaml.v3 behaviour instead of yaml.v2.
    pub(crate) v3: bool,
    /// `best_indent` (2 for both of Helm's encoders).
    pub(crate) indent: usize,
    /// `best_width`; negative for unlimited.
    pub(crate) width: isize,
}

/// The emitter state (`yaml_emitter_t`), writing into `out`.
pub(crate) struct Emitter {
    settings: Settings,
    out: Vec<u8>,
    best_indent: isize,
    best_width: isize,
    state: State,
    states: Vec<State>,
    events: VecDeque<Event>,
    indents: Vec<isize>,
    indent: isize,
    flow_level: usize,
    root_context: bool,
    sequence_context: bool,
    mapping_context: bool,
    simple_key_context: bool,
    column: isize,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    scalar: ScalarData,
    /// The type of the event being emitted (Go's `events[events_head]`).
    current: EventType,
}

type Emit = Result<(), String>;

impl Emitter {
    pub(crate) fn new(settings: Settings) -> Emitter {
        Emitter {
            settings,
            out: Vec::new(),
            best_indent: settings.indent as isize,
            best_width: settings.width,
            state: State::StreamStart,
            states: Vec::new(),
            events: VecDeque::new(),
            indents: Vec::new(),
            indent: -1,
            flow_level: 0,
            root_context: false,
            sequence_context: false,
            mapping_context: false,
            simple_key_context: false,
            column: 0,
            whitespace: true,
            indention: true,
            open_ended: false,
            scalar: ScalarData::default(),
            current: EventType::None,
        }
    }

    /// `encoder.finish` sets this before STREAM-END so no `...` is written.
    pub(crate) fn clear_open_ended(&mut self) {
        self.open_ended = false;
    }

    /// The text written so far.
    pub(crate) fn into_output(self) -> Vec<u8> {
        self.out
    }

    /// `put`.
    fn put(&mut self, value: u8) {
        self.out.push(value);
        self.column += 1;
    }

    /// `put_break` (LF line breaks).
    fn put_break(&mut self) {
        self.out.push(b'\n');
        self.column = 0;
        self.indention = true;
    }

    /// `write`: copy one character of `s` at `*i`.
    fn write(&mut self, s: &[u8], i: &mut usize) {
        let w = width(at(s, *i)).max(1);
        let end = (*i + w).min(s.len());
        self.out.extend_from_slice(&s[*i..end]);
        self.column += 1;
        *i += w;
    }

    fn write_all(&mut self, s: &[u8]) {
        let mut i = 0;
        while i < s.len() {
            self.write(s, &mut i);
        }
    }

    /// `write_break`.
    fn write_break(&mut self, s: &[u8], i: &mut usize) {
        if at(s, *i) == b'\n' {
            self.put_break();
            *i += 1;
        } else {
            self.write(s, i);
            self.column = 0;
            self.indention = true;
        }
    }

    /// `yaml_emitter_emit`: queue the event and process what can be processed.
    pub(crate) fn emit(&mut self, event: Event) -> Emit {
        self.events.push_back(event);
        while !self.need_more_events() {
            // The event being emitted leaves the queue; the look-ahead checks see it in `current`.
            let Some(event) = self.events.pop_front() else { break };
            self.current = event.typ;
            self.analyze_event(&event);
            self.state_machine(&event)?;
        }
        Ok(())
    }

    /// `yaml_emitter_need_more_events`: look ahead 1, 2 or 3 events after DOCUMENT-START, SEQUENCE-START and
    /// MAPPING-START.
    fn need_more_events(&self) -> bool {
        let Some(head) = self.events.front() else { return true };
        let accumulate = match head.typ {
            EventType::DocumentStart => 1,
            EventType::SequenceStart => 2,
            EventType::MappingStart => 3,
            _ => return false,
        };
        if self.events.len() > accumulate {
            return false;
        }
        let mut level: isize = 0;
        for event in &self.events {
            match event.typ {
                EventType::StreamStart
                | EventType::DocumentStart
                | EventType::SequenceStart
                | EventType::MappingStart => level += 1,
                EventType::StreamEnd | EventType::DocumentEnd | EventType::SequenceEnd | EventType::MappingEnd => {
                    level -= 1
                }
                _ => {}
            }
            if level == 0 {
                return false;
            }
        }
        true
    }

    /// `yaml_emitter_increase_indent` (and yaml.v3's `_compact` variant without compact sequences).
    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { self.best_indent } else { 0 };
        } else if !indentless {
            if self.settings.v3 {
                if self.states.last() == Some(&State::BlockSequenceItem) {
                    // The first indent inside a sequence just skips the "- " indicator.
                    self.indent += 2;
                } else {
                    self.indent = self.best_indent * ((self.indent + self.best_indent) / self.best_indent);
                }
            } else {
                self.indent += self.best_indent;
            }
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    /// `yaml_emitter_state_machine`.
    fn state_machine(&mut self, event: &Event) -> Emit {
        match self.state {
            State::StreamStart => self.emit_stream_start(event),
            State::FirstDocumentStart => self.emit_document_start(event, true),
            State::DocumentStart => self.emit_document_start(event, false),
            State::DocumentContent => {
                self.states.push(State::DocumentEnd);
                self.emit_node(event, true, false, false, false)
            }
            State::DocumentEnd => self.emit_document_end(event),
            State::FlowSequenceFirstItem => self.emit_flow_sequence_item(event, true),
            State::FlowSequenceItem => self.emit_flow_sequence_item(event, false),
            State::FlowMappingFirstKey => self.emit_flow_mapping_key(event, true),
            State::FlowMappingKey => self.emit_flow_mapping_key(event, false),
            State::FlowMappingSimpleValue => self.emit_flow_mapping_value(event, true),
            State::FlowMappingValue => self.emit_flow_mapping_value(event, false),
            State::BlockSequenceFirstItem => self.emit_block_sequence_item(event, true),
            State::BlockSequenceItem => self.emit_block_sequence_item(event, false),
            State::BlockMappingFirstKey => self.emit_block_mapping_key(event, true),
            State::BlockMappingKey => self.emit_block_mapping_key(event, false),
            State::BlockMappingSimpleValue => self.emit_block_mapping_value(event, true),
            State::BlockMappingValue => self.emit_block_mapping_value(event, false),
            State::End => Err("expected nothing after STREAM-END".to_string()),
        }
    }

    /// `yaml_emitter_emit_stream_start`.
    fn emit_stream_start(&mut self, event: &Event) -> Emit {
        if event.typ != EventType::StreamStart {
            return Err("expected STREAM-START".to_string());
        }
        if self.best_indent < 2 || self.best_indent > 9 {
            self.best_indent = 2;
        }
        if self.best_width >= 0 && self.best_width <= self.best_indent * 2 {
            self.best_width = 80;
        }
        if self.best_width < 0 {
            self.best_width = (1 << 31) - 1;
        }
        self.indent = -1;
        self.column = 0;
        self.whitespace = true;
        self.indention = true;
        self.state = State::FirstDocumentStart;
        Ok(())
    }

    /// `yaml_emitter_emit_document_start` for implicit documents without directives.
    fn emit_document_start(&mut self, event: &Event, first: bool) -> Emit {
        match event.typ {
            EventType::DocumentStart => {
                let implicit = event.implicit && first;
                if !implicit {
                    self.write_indent();
                    self.write_indicator(b"---", true, false, false);
                    if self.settings.v3 {
                        self.write_indent();
                    }
                }
                self.state = State::DocumentContent;
                Ok(())
            }
            EventType::StreamEnd => {
                if self.open_ended {
                    self.write_indicator(b"...", true, false, false);
                    self.write_indent();
                }
                self.state = State::End;
                Ok(())
            }
            _ => Err("expected DOCUMENT-START or STREAM-END".to_string()),
        }
    }

    /// `yaml_emitter_emit_document_end`.
    fn emit_document_end(&mut self, event: &Event) -> Emit {
        if event.typ != EventType::DocumentEnd {
            return Err("expected DOCUMENT-END".to_string());
        }
        self.write_indent();
        if !event.implicit {
            self.write_indicator(b"...", true, false, false);
            self.write_indent();
        }
        self.state = State::DocumentStart;
        Ok(())
    }

    /// `yaml_emitter_emit_flow_sequence_item`.
    fn emit_flow_sequence_item(&mut self, event: &Event, first: bool) -> Emit {
        if first {
            self.write_indicator(b"[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if event.typ == EventType::SequenceEnd {
            self.flow_level = self.flow_level.saturating_sub(1);
            self.pop_indent();
            if self.settings.v3 && self.column == 0 {
                self.write_indent();
            }
            self.write_indicator(b"]", false, false, false);
            self.pop_state();
            return Ok(());
        }
        if !first {
            self.write_indicator(b",", false, false, false);
        }
        if self.settings.v3 && self.column == 0 {
            self.write_indent();
        }
        if self.column > self.best_width {
            self.write_indent();
        }
        self.states.push(State::FlowSequenceItem);
        self.emit_node(event, false, true, false, false)
    }

    /// `yaml_emitter_emit_flow_mapping_key`.
    fn emit_flow_mapping_key(&mut self, event: &Event, first: bool) -> Emit {
        if first {
            self.write_indicator(b"{", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if event.typ == EventType::MappingEnd {
            self.flow_level = self.flow_level.saturating_sub(1);
            self.pop_indent();
            self.write_indicator(b"}", false, false, false);
            self.pop_state();
            return Ok(());
        }
        if !first {
            self.write_indicator(b",", false, false, false);
        }
        if self.settings.v3 && self.column == 0 {
            self.write_indent();
        }
        if self.column > self.best_width {
            self.write_indent();
        }
        if self.check_simple_key() {
            self.states.push(State::FlowMappingSimpleValue);
            return self.emit_node(event, false, false, true, true);
        }
        self.write_indicator(b"?", true, false, false);
        self.states.push(State::FlowMappingValue);
        self.emit_node(event, false, false, true, false)
    }

    /// `yaml_emitter_emit_flow_mapping_value`.
    fn emit_flow_mapping_value(&mut self, event: &Event, simple: bool) -> Emit {
        if simple {
            self.write_indicator(b":", false, false, false);
        } else {
            if self.column > self.best_width {
                self.write_indent();
            }
            self.write_indicator(b":", true, false, false);
        }
        self.states.push(State::FlowMappingKey);
        self.emit_node(event, false, false, true, false)
    }

    /// `yaml_emitter_emit_block_sequence_item`: v2 does not indent a sequence that is a mapping value.
    fn emit_block_sequence_item(&mut self, event: &Event, first: bool) -> Emit {
        if first {
            let indentless = !self.settings.v3 && self.mapping_context && !self.indention;
            self.increase_indent(false, indentless);
        }
        if event.typ == EventType::SequenceEnd {
            self.pop_indent();
            self.pop_state();
            return Ok(());
        }
        self.write_indent();
        self.write_indicator(b"-", true, false, true);
        self.states.push(State::BlockSequenceItem);
        self.emit_node(event, false, true, false, false)
    }

    /// `yaml_emitter_emit_block_mapping_key`.
    fn emit_block_mapping_key(&mut self, event: &Event, first: bool) -> Emit {
        if first {
            self.increase_indent(false, false);
        }
        if event.typ == EventType::MappingEnd {
            self.pop_indent();
            self.pop_state();
            return Ok(());
        }
        self.write_indent();
        if self.check_simple_key() {
            self.states.push(State::BlockMappingSimpleValue);
            return self.emit_node(event, false, false, true, true);
        }
        self.write_indicator(b"?", true, false, true);
        self.states.push(State::BlockMappingValue);
        self.emit_node(event, false, false, true, false)
    }

    /// `yaml_emitter_emit_block_mapping_value`.
    fn emit_block_mapping_value(&mut self, event: &Event, simple: bool) -> Emit {
        if simple {
            self.write_indicator(b":", false, false, false);
        } else {
            self.write_indent();
            self.write_indicator(b":", true, false, true);
        }
        self.states.push(State::BlockMappingKey);
        self.emit_node(event, false, false, true, false)
    }

    /// `yaml_emitter_emit_node`.
    fn emit_node(&mut self, event: &Event, root: bool, sequence: bool, mapping: bool, simple_key: bool) -> Emit {
        self.root_context = root;
        self.sequence_context = sequence;
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match event.typ {
            EventType::Scalar => self.emit_scalar(event),
            EventType::SequenceStart => {
                self.state = if self.flow_level > 0
                    || event.collection_style == CollectionStyle::Flow
                    || self.check_empty(EventType::SequenceStart, EventType::SequenceEnd)
                {
                    State::FlowSequenceFirstItem
                } else {
                    State::BlockSequenceFirstItem
                };
                Ok(())
            }
            EventType::MappingStart => {
                self.state = if self.flow_level > 0
                    || event.collection_style == CollectionStyle::Flow
                    || self.check_empty(EventType::MappingStart, EventType::MappingEnd)
                {
                    State::FlowMappingFirstKey
                } else {
                    State::BlockMappingFirstKey
                };
                Ok(())
            }
            other => Err(format!("expected SCALAR, SEQUENCE-START, MAPPING-START, or ALIAS, but got {}", other.name())),
        }
    }

    /// `yaml_emitter_emit_scalar`.
    fn emit_scalar(&mut self, event: &Event) -> Emit {
        self.select_scalar_style(event);
        self.increase_indent(true, false);
        self.process_scalar();
        self.pop_indent();
        self.pop_state();
        Ok(())
    }

    /// `yaml_emitter_check_empty_sequence` / `_mapping`: the event being emitted and the next one open and close
    /// a collection.
    fn check_empty(&self, start: EventType, end: EventType) -> bool {
        self.current == start && self.events.front().is_some_and(|next| next.typ == end)
    }

    /// `yaml_emitter_check_simple_key`.
    fn check_simple_key(&self) -> bool {
        let length = match self.current {
            EventType::Scalar => {
                if self.scalar.multiline {
                    return false;
                }
                self.scalar.value.len()
            }
            EventType::SequenceStart => {
                if !self.check_empty(EventType::SequenceStart, EventType::SequenceEnd) {
                    return false;
                }
                0
            }
            EventType::MappingStart => {
                if !self.check_empty(EventType::MappingStart, EventType::MappingEnd) {
                    return false;
                }
                0
            }
            _ => return false,
        };
        length <= 128
    }

    /// `yaml_emitter_select_scalar_style` for untagged implicit scalars.
    fn select_scalar_style(&mut self, event: &Event) {
        let mut style = event.scalar_style;
        if style == ScalarStyle::Any {
            style = ScalarStyle::Plain;
        }
        if self.simple_key_context && self.scalar.multiline {
            style = ScalarStyle::DoubleQuoted;
        }
        if style == ScalarStyle::Plain {
            if (self.flow_level > 0 && !self.scalar.flow_plain_allowed)
                || (self.flow_level == 0 && !self.scalar.block_plain_allowed)
            {
                style = ScalarStyle::SingleQuoted;
            }
            if self.scalar.value.is_empty() && (self.flow_level > 0 || self.simple_key_context) {
                style = ScalarStyle::SingleQuoted;
            }
            if !event.implicit {
                style = ScalarStyle::SingleQuoted;
            }
        }
        if style == ScalarStyle::SingleQuoted && !self.scalar.single_quoted_allowed {
            style = ScalarStyle::DoubleQuoted;
        }
        if (style == ScalarStyle::Literal || style == ScalarStyle::Folded)
            && (!self.scalar.block_allowed || self.flow_level > 0 || self.simple_key_context)
        {
            style = ScalarStyle::DoubleQuoted;
        }
        self.scalar.style = style;
    }

    /// `yaml_emitter_process_scalar`.
    fn process_scalar(&mut self) {
        let value = std::mem::take(&mut self.scalar.value);
        let allow_breaks = !self.simple_key_context;
        match self.scalar.style {
            ScalarStyle::SingleQuoted => self.write_single_quoted_scalar(&value, allow_breaks),
            ScalarStyle::DoubleQuoted => self.write_double_quoted_scalar(&value, allow_breaks),
            ScalarStyle::Literal => self.write_literal_scalar(&value),
            ScalarStyle::Folded => self.write_folded_scalar(&value),
            ScalarStyle::Plain | ScalarStyle::Any => self.write_plain_scalar(&value, allow_breaks),
        }
        self.scalar.value = value;
    }

    /// `yaml_emitter_analyze_event`: only scalars carry data to analyze here.
    fn analyze_event(&mut self, event: &Event) {
        self.scalar.value.clear();
        if event.typ == EventType::Scalar {
            self.analyze_scalar(&event.value);
        }
    }

    /// `yaml_emitter_analyze_scalar`: which styles can represent the value.
    fn analyze_scalar(&mut self, value: &[u8]) {
        let data = &mut self.scalar;
        data.value = value.to_vec();
        if value.is_empty() {
            data.multiline = false;
            data.flow_plain_allowed = false;
            data.block_plain_allowed = true;
            data.single_quoted_allowed = true;
            data.block_allowed = false;
            return;
        }
        let mut block_indicators = false;
        let mut flow_indicators = false;
        let mut line_breaks = false;
        let mut special_characters = false;
        let mut tab_characters = false;
        let mut leading_space = false;
        let mut leading_break = false;
        let mut trailing_space = false;
        let mut trailing_break = false;
        let mut break_space = false;
        let mut space_break = false;
        let mut previous_space = false;
        let mut previous_break = false;

        if value.len() >= 3 && (value.starts_with(b"---") || value.starts_with(b"...")) {
            block_indicators = true;
            flow_indicators = true;
        }
        let mut preceded_by_whitespace = true;
        let mut i = 0;
        while i < value.len() {
            let w = width(value[i]).max(1);
            let followed_by_whitespace = i + w >= value.len() || is_blank(value, i + w);
            let c = value[i];
            if i == 0 {
                match c {
                    b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"'
                    | b'%' | b'@' | b'`' => {
                        flow_indicators = true;
                        block_indicators = true;
                    }
                    b'?' | b':' => {
                        flow_indicators = true;
                        if followed_by_whitespace {
                            block_indicators = true;
                        }
                    }
                    b'-' if followed_by_whitespace => {
                        flow_indicators = true;
                        block_indicators = true;
                    }
                    _ => {}
                }
            } else {
                match c {
                    b',' | b'?' | b'[' | b']' | b'{' | b'}' => flow_indicators = true,
                    b':' => {
                        flow_indicators = true;
                        if followed_by_whitespace {
                            block_indicators = true;
                        }
                    }
                    b'#' if preceded_by_whitespace => {
                        flow_indicators = true;
                        block_indicators = true;
                    }
                    _ => {}
                }
            }

            if self.settings.v3 && c == b'\t' {
                tab_characters = true;
            } else if !is_printable(value, i) {
                special_characters = true;
            }
            if is_space(value, i) {
                if i == 0 {
                    leading_space = true;
                }
                if i + w == value.len() {
                    trailing_space = true;
                }
                if previous_break {
                    break_space = true;
                }
                previous_space = true;
                previous_break = false;
            } else if is_break(value, i) {
                line_breaks = true;
                if i == 0 {
                    leading_break = true;
                }
                if i + w == value.len() {
                    trailing_break = true;
                }
                if previous_space {
                    space_break = true;
                }
                previous_space = false;
                previous_break = true;
            } else {
                previous_space = false;
                previous_break = false;
            }
            preceded_by_whitespace = is_blankz(value, i);
            i += w;
        }

        data.multiline = line_breaks;
        data.flow_plain_allowed = true;
        data.block_plain_allowed = true;
        data.single_quoted_allowed = true;
        data.block_allowed = true;
        if leading_space || leading_break || trailing_space || trailing_break {
            data.flow_plain_allowed = false;
            data.block_plain_allowed = false;
        }
        if trailing_space {
            data.block_allowed = false;
        }
        if break_space {
            data.flow_plain_allowed = false;
            data.block_plain_allowed = false;
            data.single_quoted_allowed = false;
        }
        if space_break || tab_characters || special_characters {
            data.flow_plain_allowed = false;
            data.block_plain_allowed = false;
            data.single_quoted_allowed = false;
        }
        if space_break || special_characters {
            data.block_allowed = false;
        }
        if line_breaks {
            data.flow_plain_allowed = false;
            data.block_plain_allowed = false;
        }
        if flow_indicators {
            data.flow_plain_allowed = false;
        }
        if block_indicators {
            data.block_plain_allowed = false;
        }
    }

    /// `yaml_emitter_write_indent`.
    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(b' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    /// `yaml_emitter_write_indicator`.
    fn write_indicator(&mut self, indicator: &[u8], need_whitespace: bool, is_whitespace: bool, is_indention: bool) {
        if need_whitespace && !self.whitespace {
            self.put(b' ');
        }
        self.write_all(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    /// `yaml_emitter_write_plain_scalar`.
    fn write_plain_scalar(&mut self, value: &[u8], allow_breaks: bool) {
        let write_space = if self.settings.v3 { !value.is_empty() } else { true };
        if write_space && !self.whitespace {
            self.put(b' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks && !spaces && self.column > self.best_width && !is_space(value, i + 1) {
                    self.write_indent();
                    i += width(value[i]).max(1);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(value, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        if !self.settings.v3 || !value.is_empty() {
            self.whitespace = false;
        }
        self.indention = false;
        if self.root_context {
            self.open_ended = true;
        }
    }

    /// `yaml_emitter_write_single_quoted_scalar`.
    fn write_single_quoted_scalar(&mut self, value: &[u8], allow_breaks: bool) {
        self.write_indicator(b"'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && i > 0
                    && i < value.len() - 1
                    && !is_space(value, i + 1)
                {
                    self.write_indent();
                    i += width(value[i]).max(1);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if value[i] == b'\'' {
                    self.put(b'\'');
                }
                self.write(value, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator(b"'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// `yaml_emitter_write_double_quoted_scalar`.
    fn write_double_quoted_scalar(&mut self, value: &[u8], allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator(b"\"", true, false, false);
        let mut i = 0;
        while i < value.len() {
            let c = value[i];
            if !is_printable(value, i) || is_bom(value, i) || is_break(value, i) || c == b'"' || c == b'\\' {
                let w = width(c).max(1);
                let mut v: u32 = u32::from(match w {
                    1 => c & 0x7F,
                    2 => c & 0x1F,
                    3 => c & 0x0F,
                    _ => c & 0x07,
                });
                for k in 1..w {
                    v = (v << 6) + u32::from(at(value, i + k) & 0x3F);
                }
                i += w;
                self.put(b'\\');
                let simple = match v {
                    0x00 => Some(b'0'),
                    0x07 => Some(b'a'),
                    0x08 => Some(b'b'),
                    0x09 => Some(b't'),
                    0x0A => Some(b'n'),
                    0x0B => Some(b'v'),
                    0x0C => Some(b'f'),
                    0x0D => Some(b'r'),
                    0x1B => Some(b'e'),
                    0x22 => Some(b'"'),
                    0x5C => Some(b'\\'),
                    0x85 => Some(b'N'),
                    0xA0 => Some(b'_'),
                    0x2028 => Some(b'L'),
                    0x2029 => Some(b'P'),
                    _ => None,
                };
                match simple {
                    Some(escape) => self.put(escape),
                    None => {
                        let (letter, digits) = if v <= 0xFF {
                            (b'x', 2)
                        } else if v <= 0xFFFF {
                            (b'u', 4)
                        } else {
                            (b'U', 8)
                        };
                        self.put(letter);
                        for k in (0..digits).rev() {
                            let digit = ((v >> (k * 4)) & 0x0F) as u8;
                            self.put(if digit < 10 { digit + b'0' } else { digit + b'A' - 10 });
                        }
                    }
                }
                spaces = false;
            } else if is_space(value, i) {
                if allow_breaks && !spaces && self.column > self.best_width && i > 0 && i < value.len() - 1 {
                    self.write_indent();
                    if is_space(value, i + 1) {
                        self.put(b'\\');
                    }
                    i += width(value[i]).max(1);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else {
                self.write(value, &mut i);
                spaces = false;
            }
        }
        self.write_indicator(b"\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// `yaml_emitter_write_block_scalar_hints`.
    fn write_block_scalar_hints(&mut self, value: &[u8]) {
        if is_space(value, 0) || is_break(value, 0) {
            let hint = [b'0' + self.best_indent as u8];
            self.write_indicator(&hint, false, false, false);
        }
        self.open_ended = false;
        let mut chomp = None;
        if value.is_empty() {
            chomp = Some(b'-');
        } else {
            let mut i = value.len() - 1;
            while i > 0 && value[i] & 0xC0 == 0x80 {
                i -= 1;
            }
            if !is_break(value, i) {
                chomp = Some(b'-');
            } else if i == 0 {
                chomp = Some(b'+');
                self.open_ended = true;
            } else {
                i -= 1;
                while i > 0 && value[i] & 0xC0 == 0x80 {
                    i -= 1;
                }
                if is_break(value, i) {
                    chomp = Some(b'+');
                    self.open_ended = true;
                }
            }
        }
        if let Some(chomp) = chomp {
            self.write_indicator(&[chomp], false, false, false);
        }
    }

    /// `yaml_emitter_write_literal_scalar`.
    fn write_literal_scalar(&mut self, value: &[u8]) {
        self.write_indicator(b"|", true, false, false);
        self.write_block_scalar_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut i = 0;
        while i < value.len() {
            if is_break(value, i) {
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(value, &mut i);
                self.indention = false;
                breaks = false;
            }
        }
    }

    /// `yaml_emitter_write_folded_scalar`.
    fn write_folded_scalar(&mut self, value: &[u8]) {
        self.write_indicator(b">", true, false, false);
        self.write_block_scalar_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut leading_spaces = true;
        let mut i = 0;
        while i < value.len() {
            if is_break(value, i) {
                if !breaks && !leading_spaces && value[i] == b'\n' {
                    let mut k = 0;
                    while is_break(value, k) {
                        k += width(value[k]).max(1);
                    }
                    if !is_blankz(value, k) {
                        self.put_break();
                    }
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    leading_spaces = is_blank(value, i);
                }
                if !breaks && is_space(value, i) && !is_space(value, i + 1) && self.column > self.best_width {
                    self.write_indent();
                    i += width(value[i]).max(1);
                } else {
                    self.write(value, &mut i);
                }
                self.indention = false;
                breaks = false;
            }
        }
    }
}
