"""``multiword_tokens``: raw text's tokens made the treebank's tokens and words.

spaCy's tokenizer splits raw text by its language's rules; a UD treebank
has rules of its own: its tokens (Latin's "mecum" one token, where spaCy's
Latin tokenizer makes "me" "cum") and, inside some tokens, several syntactic
words (a multiword token: Latin "populusque" = "populus" + "que",
Portuguese "do" = "de" + "o", Greek crasis). This component learns both from
the training data when it is initialised and applies them to the Docs the
tokenizer makes, before any other component reads them:

1. **Tokens.** Each training sentence's ``# text`` is tokenised and aligned
   with the treebank's tokens; a run of tokenizer tokens (no space between
   them) that the treebank writes as one token is merged, a tokenizer token
   the treebank splits is split, where the training data does so at least
   as often as not.
2. **Words.** A token the training data splits into words at least as often
   as it keeps it whole is split as it was (``lexicon``); an unseen token
   ending in an enclitic the training data splits off (``suffixes``: a
   two-word token whose second word ends it, as Latin's -que, -ve) is split
   there when most training tokens ending in it were split (Latin's -ne
   ends many a word: it is not split unless seen split).

The Doc it gives has the words as tokens (inside a multiword token separated
by a space, as ``conllu_io`` builds a treebank's Docs) and the multiword
tokens' surface forms in ``Doc.user_data[MWT_KEY]``, which the CoNLL-U
writer writes as UD's range lines. Its text is therefore not always the
user's ("Tantoque habet." gives "Tanto que habet."): ``doc._.input_text``
is the text as given and ``token._.input_idx`` each word's offset in it
(the words of one multiword token share their token's offset; where
nothing was split, ``doc.text`` and ``token.idx``). Each word of a multiword
token knows it, from raw text and from CoNLL-U alike: ``token._.mwt_text``
its surface form ("Tantoque"), ``token._.mwt`` its words as a Span,
``token._.input_span`` the characters of ``doc._.input_text`` it was
written with (``multiword_tokens``). A Doc whose tokens are already words
(CoNLL-U input, the training reader's: ``readers.WORDS_GIVEN``) is left as it
is. Nothing is learned by gradient: ``initialize`` reads the tables, which
``to_disk`` saves.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import srsly
from spacy.language import Language
from spacy.tokens import Doc, Token
from spacy.training import Alignment, Example
from spacy.util import ensure_path

from spacy_planar.defaults import BATCH_SIZE
from spacy_planar.io.conllu import MWT_KEY, USER_DATA_KEY
from spacy_planar.io.readers import WORDS_GIVEN
from spacy_planar.model.per_word import CACHE_LIMIT

INPUT_KEY = "spacy_planar_input"  # Doc.user_data: (the input text, each word's offset in it)
MAX_MERGED = 3  # the most tokenizer tokens merged into one treebank token
MISSING = object()  # a surface form not in the cache (None there: one word)
MIN_SUFFIX_TYPES = 3  # an enclitic is learned from at least this many distinct tokens split off by it


@Language.factory("multiword_tokens", assigns=["doc.user_data"], default_config={})
def make_multiword_tokens(nlp: Language, name: str) -> "MultiwordTokens":
    return MultiwordTokens(nlp, name)


class MultiwordTokens:
    """The tables learned from the training data (see the module's text),
    applied to raw text's Docs."""

    def __init__(self, nlp: Language, name: str = "multiword_tokens"):
        self.name = name
        self.vocab = nlp.vocab
        self.tokenizer = nlp.tokenizer
        self.tables: Dict = {"merges": [], "token_splits": {}, "lexicon": {}, "suffixes": [], "whole": []}
        self._build()

    # --- learning ------------------------------------------------------------------------
    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None) -> None:
        """Learn the tables from the training Examples' reference Docs (their
        sentences' ``# text`` and multiword tokens, ``conllu_io``'s lines)."""
        merged, merge_seen = Counter(), Counter()
        split, split_seen = defaultdict(Counter), Counter()
        as_mwt, as_word = defaultdict(Counter), Counter()
        for eg in get_examples():
            for text, tokens, words in treebank_sentences(eg.reference):
                for surface, ws in zip(tokens, words):
                    if len(ws) > 1:
                        as_mwt[surface.lower()][tuple(w.lower() for w in ws)] += 1
                    else:
                        as_word[surface.lower()] += 1
                if text:
                    self._learn_tokens(text, tokens, merged, merge_seen, split, split_seen)
        self.tables = learned_tables(merged, merge_seen, split, split_seen, as_mwt, as_word)
        self._build()

    def _learn_tokens(self, text: str, tokens: List[str], merged: Counter, merge_seen: Counter,
                      split: Dict, split_seen: Counter) -> None:
        """Count, over one sentence, the tokenizer's runs the treebank writes
        as one token and the tokenizer's tokens it writes as several."""
        mine = [t.text for t in self.tokenizer(text) if not t.is_space]
        try:
            align = Alignment.from_strings(mine, tokens)
        except ValueError:  # the text and the tokens differ (a treebank's typo): nothing learned
            return
        lengths, data = align.y2x.lengths, align.y2x.data
        start = 0
        for n in lengths:
            pieces = tuple(mine[int(i)].lower() for i in data[start:start + n])
            if n > 1:
                merged[pieces] += 1
            start += n
        for n in range(2, MAX_MERGED + 1):
            for i in range(len(mine) - n + 1):
                merge_seen[tuple(t.lower() for t in mine[i:i + n])] += 1
        start = 0
        for i, n in enumerate(align.x2y.lengths):
            targets = [tokens[int(j)] for j in align.x2y.data[start:start + n]]
            split_seen[mine[i].lower()] += 1
            if n > 1 and "".join(targets) == mine[i]:
                split[mine[i].lower()][tuple(len(t) for t in targets)] += 1
            start += n

    def _build(self) -> None:
        """The lookups the tables give (kept apart from the saved tables)."""
        t = self.tables
        self._merges = {tuple(pieces) for pieces in t["merges"]}
        self._merge_firsts = {pieces[0] for pieces in self._merges}
        self._suffixes = tuple(sorted(t["suffixes"], key=len, reverse=True))
        self._whole = set(t["whole"])
        self._cache: Dict[str, Optional[List[str]]] = {}

    # --- applying --------------------------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        if doc.user_data.get(WORDS_GIVEN) or not len(doc):
            return doc
        surfaces, spaces = self._tokens(doc)
        words, word_spaces, ranges, offsets = [], [], [], []
        offset = 0
        for surface, space in zip(surfaces, spaces):
            parts = self._words(surface)
            if parts is None:
                words.append(surface)
                word_spaces.append(space)
                offsets.append(offset)
            else:
                ranges.append([len(words), len(words) + len(parts) - 1, surface])
                words.extend(parts)
                word_spaces.extend([True] * (len(parts) - 1) + [space])
                offsets.extend([offset] * len(parts))
            offset += len(surface) + space
        if not ranges and len(words) == len(doc):
            return doc
        out = Doc(self.vocab, words=words, spaces=word_spaces)
        out.user_data.update(doc.user_data)
        out.user_data[INPUT_KEY] = (doc.text, offsets)
        if ranges:
            out.user_data[MWT_KEY] = ranges
        return out

    def _tokens(self, doc: Doc) -> Tuple[List[str], List[bool]]:
        """The Doc's tokens as the treebank writes them: merged where the
        tables say so, then split."""
        texts = [t.text for t in doc]
        spaces = [bool(t.whitespace_) for t in doc]
        out, out_spaces, i = [], [], 0
        while i < len(texts):
            n = self._merge_at(texts, spaces, i) if texts[i].lower() in self._merge_firsts else 1
            text = "".join(texts[i:i + n])
            for piece in self._token_pieces(text):
                out.append(piece)
                out_spaces.append(False)
            out_spaces[-1] = spaces[i + n - 1]
            i += n
        return out, out_spaces

    def _merge_at(self, texts: List[str], spaces: List[bool], i: int) -> int:
        for n in range(MAX_MERGED, 1, -1):
            if (i + n <= len(texts) and not any(spaces[i:i + n - 1])
                    and tuple(t.lower() for t in texts[i:i + n]) in self._merges):
                return n
        return 1

    def _token_pieces(self, text: str) -> List[str]:
        lengths = self.tables["token_splits"].get(text.lower())
        if not lengths:
            return [text]
        cuts = [sum(lengths[:k]) for k in range(len(lengths) + 1)]
        return [text[a:b] for a, b in zip(cuts, cuts[1:])]

    def _words(self, surface: str) -> Optional[List[str]]:
        """The words of a surface token, or None where it is one word."""
        found = self._cache.get(surface, MISSING)
        if found is MISSING:
            found = split_words(surface, self.tables["lexicon"], self._suffixes, self._whole)
            if len(self._cache) >= CACHE_LIMIT:  # bounded: a corpus of millions of forms in flat memory
                self._cache.clear()
            self._cache[surface] = found
        return found

    def pipe(self, docs: Iterable[Doc], batch_size: int = BATCH_SIZE) -> Iterable[Doc]:
        for doc in docs:
            yield self(doc)

    # --- serialization -----------------------------------------------------------------------
    def to_bytes(self, *, exclude: Sequence[str] = tuple()) -> bytes:
        return srsly.msgpack_dumps(self.tables)

    def from_bytes(self, data: bytes, *, exclude: Sequence[str] = tuple()) -> "MultiwordTokens":
        self.tables = srsly.msgpack_loads(data)
        self._build()
        return self

    def to_disk(self, path, *, exclude: Sequence[str] = tuple()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "tables.json", self.tables)

    def from_disk(self, path, *, exclude: Sequence[str] = tuple()) -> "MultiwordTokens":
        self.tables = srsly.read_json(Path(path) / "tables.json")
        self._build()
        return self


def split_words(surface: str, lexicon: Dict[str, List[str]], suffixes: Tuple[str, ...], whole) -> Optional[List[str]]:
    """``surface``'s words: the lexicon's (in the surface's own letters
    where they spell it, capitalised as it is otherwise), else the surface
    cut before an enclitic of ``suffixes`` where it is not a token kept
    whole in training (``whole``) and leaves at least two letters; None:
    one word."""
    lower = surface.lower()
    words = lexicon.get(lower)
    if words:
        if "".join(words) == lower:
            cuts = [sum(len(w) for w in words[:k]) for k in range(len(words) + 1)]
            return [surface[a:b] for a, b in zip(cuts, cuts[1:])]
        first = words[0][:1].upper() + words[0][1:] if surface[:1].isupper() else words[0]
        return [first] + list(words[1:])
    if lower in whole or not suffixes:
        return None
    for suffix in suffixes:
        if lower.endswith(suffix) and len(lower) - len(suffix) >= 2 and surface[:-len(suffix)].isalpha():
            return [surface[:-len(suffix)], surface[-len(suffix):]]
    return None


def treebank_sentences(doc: Doc) -> Iterable[Tuple[str, List[str], List[List[str]]]]:
    """Per sentence of a treebank's Doc: its ``# text`` (or ""), its tokens
    as the treebank writes them, and each token's words."""
    stored = doc.user_data.get(USER_DATA_KEY, {}).get("sents") or []
    if sum(s["n"] for s in stored) != len(doc):
        return
    start = 0
    for s in stored:
        forms = [t.text for t in doc[start:start + s["n"]]]
        ranges = {int(first): (int(last), cols[1]) for first, last, cols in s["ranges"]}
        tokens, words, i = [], [], 0
        while i < len(forms):
            if i in ranges:
                last, surface = ranges[i]
                tokens.append(surface)
                words.append(forms[i:last + 1])
                i = last + 1
            else:
                tokens.append(forms[i])
                words.append([forms[i]])
                i += 1
        text = next((c.split("=", 1)[1].strip() for c in s["comments"] if c.startswith("# text =")), "")
        yield text, tokens, words
        start += s["n"]


def learned_tables(merged: Counter, merge_seen: Counter, split: Dict, split_seen: Counter, as_mwt: Dict,
                   as_word: Counter) -> Dict:
    """The tables from the training data's counts: merges and token splits
    made at least as often as not, the lexicon of tokens split into words
    at least as often as kept whole, the enclitics (``MIN_SUFFIX_TYPES``
    distinct tokens; most tokens ending in one split by it), and the
    tokens ending in one that were kept whole."""
    merges = [list(p) for p, n in merged.items() if 2 * n >= merge_seen[p]]
    token_splits = {}
    for token, ways in split.items():
        lengths, n = ways.most_common(1)[0]
        if 2 * n >= split_seen[token]:
            token_splits[token] = list(lengths)
    lexicon = {}
    for surface, ways in as_mwt.items():
        words, n = ways.most_common(1)[0]
        if 2 * sum(ways.values()) >= sum(ways.values()) + as_word[surface]:
            lexicon[surface] = list(words)
    enclitic = Counter()
    for surface, ways in as_mwt.items():
        words = ways.most_common(1)[0][0]
        if len(words) == 2 and "".join(words) == surface:
            enclitic[words[1]] += 1
    suffixes, whole = [], []
    for suffix, n in enclitic.items():
        kept = [w for w in as_word if w.endswith(suffix) and len(w) - len(suffix) >= 2]
        if n >= MIN_SUFFIX_TYPES and n > len(kept):
            suffixes.append(suffix)
            whole.extend(kept)
    return {"merges": merges, "token_splits": token_splits, "lexicon": lexicon, "suffixes": sorted(suffixes),
            "whole": sorted(set(whole))}


def _input_text(doc: Doc) -> str:
    stored = doc.user_data.get(INPUT_KEY)
    return doc.text if stored is None else stored[0]


def _input_idx(token: Token) -> int:
    stored = token.doc.user_data.get(INPUT_KEY)
    return token.idx if stored is None else stored[1][token.i]


def multiword_tokens(doc: Doc) -> Dict[int, Tuple[int, int, str]]:
    """Each word of a multiword token: its token's first and last word (token
    indices) and surface form; from raw text (``MWT_KEY``, this component's) or
    from a CoNLL-U Doc's range lines (its sentences' ``ranges``)."""
    found = [tuple(r) for r in doc.user_data.get(MWT_KEY) or []]
    start = 0
    for sent in doc.user_data.get(USER_DATA_KEY, {}).get("sents") or []:
        found += [(start + a, start + b, cols[1]) for a, b, cols in sent.get("ranges", [])]
        start += sent.get("n", 0)
    return {i: (first, last, surface) for first, last, surface in found for i in range(first, last + 1)
            if last < len(doc)}


def _mwt(token: Token):
    """The words of the token's multiword token as a Span, or None."""
    found = multiword_tokens(token.doc).get(token.i)
    return None if found is None else token.doc[found[0]:found[1] + 1]


def _mwt_text(token: Token) -> Optional[str]:
    found = multiword_tokens(token.doc).get(token.i)
    return None if found is None else found[2]


def _input_span(token: Token) -> Tuple[int, int]:
    """The characters of ``doc._.input_text`` the word was written with: its multiword
    token's surface form for a word of one (raw text), else its own text; in a Doc
    whose text is its words (a CoNLL-U Doc), the multiword token's words."""
    doc = token.doc
    found = multiword_tokens(doc).get(token.i)
    if doc.user_data.get(INPUT_KEY) is None:
        first, last = (token.i, token.i) if found is None else found[:2]
        return doc[first].idx, doc[last].idx + len(doc[last])
    start = _input_idx(token)
    return start, start + len(token.text if found is None else found[2])


for _cls, _name, _getter in ((Doc, "input_text", _input_text), (Token, "input_idx", _input_idx),
                             (Token, "mwt", _mwt), (Token, "mwt_text", _mwt_text),
                             (Token, "input_span", _input_span)):
    if not _cls.has_extension(_name):
        _cls.set_extension(_name, getter=_getter)
