"""Build the benchmark corpus: seeded, multilingual reference lines and OCR-like noisy outputs.

    python bench/make_corpus.py                # 100,000 lines -> bench/out/refs.100000.jsonl, hyps.100000.jsonl
    python bench/make_corpus.py --lines 5000   # a smaller corpus (the first 5,000 lines of the same stream)

Nothing is downloaded. Words come from ``wordfreq.top_n_list`` (de, fr, es, pl, en, vi, zh, ja, hi, ta,
bn, ar) and, for Thai (which wordfreq lacks), from a hand-written list below; they are joined into lines
of 20-120 code points. Some English lines carry emoji (ZWJ sequences, skin tones, flags). The output
side gets OCR-like noise: visually confusable substitutions, dropped or swapped diacritics and tone
marks, insertions, deletions, merged and split words, at a per-line rate drawn from 2-10 % of the
reference's grapheme clusters; 15 % of lines are left exact. About 3 % of references and 3 % of outputs
are written decomposed (NFD). One ``random.Random(seed)`` is consumed line by line, so a smaller corpus
is exactly a prefix of a larger one with the same seed (given the same wordfreq version, which is
recorded in the manifest ``bench/out/corpus.<N>.json``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import unicodedata
from importlib.metadata import version
from pathlib import Path

import regex

OUT = Path(__file__).resolve().parent / "out"
SEED = 20260501
CLUSTER = regex.compile(r"\X")

# lang -> share of lines
LANGS: dict[str, float] = {
    "de": 1, "fr": 1, "es": 1, "pl": 1, "en": 0.6, "vi": 1.2, "zh": 1, "ja": 1,
    "hi": 1, "ta": 0.8, "bn": 0.8, "th": 0.8, "ar": 1,
}
NO_SPACES = {"zh", "ja"}  # words joined without spaces
THAI_WORDS = """
ที่ การ ใน และ ของ เป็น ไม่ มี ได้ จะ ให้ ว่า คน นี้ กับ แต่ ก็ มา ไป แล้ว ความ อยู่ ทำ น้ำ คำ จำ กำลัง สำคัญ
ตำรวจ ลำ ดำ รำ ทำงาน ข้าว บ้าน เมือง ประเทศ ไทย ภาษา หนังสือ โรงเรียน นักเรียน ครู เด็ก ผู้ใหญ่ วัน เวลา ปี
เดือน สัปดาห์ ชั่วโมง นาที เงิน บาท ราคา ซื้อ ขาย ตลาด อาหาร อร่อย กิน ดื่ม นอน เดิน วิ่ง รถ ถนน ทาง ซ้าย ขวา
ใหญ่ เล็ก ดี สวย ร้อน เย็น ฝน ฟ้า ทะเล ภูเขา แม่น้ำ ต้นไม้ ดอกไม้ สี แดง เขียว ขาว พ่อ แม่ พี่ น้อง เพื่อน รัก
ชอบ คิด รู้ เข้าใจ พูด อ่าน เขียน ฟัง ดู เห็น ถาม ตอบ ช่วย ขอบคุณ สวัสดี ครับ ค่ะ โทรศัพท์ คอมพิวเตอร์ ข้อมูล
ระบบ รัฐบาล นายกรัฐมนตรี เศรษฐกิจ สังคม วัฒนธรรม ประวัติศาสตร์ มหาวิทยาลัย โรงพยาบาล หมอ ยา สุขภาพ
กรุงเทพมหานคร เชียงใหม่ ภูเก็ต ศูนย์ หนึ่ง สอง สาม สี่ ห้า หก เจ็ด แปด เก้า สิบ ร้อย พัน หมื่น แสน ล้าน
""".split()
EMOJI = [
    "👨\u200d👩\u200d👧\u200d👦", "👩\u200d💻", "🏳\ufe0f\u200d🌈", "🧑🏽\u200d🚀", "👍🏽", "🇩🇪", "🇫🇷", "🇯🇵",
    "😀", "❤\ufe0f", "🤷\u200d♀\ufe0f", "👨\u200d❤\ufe0f\u200d👨", "🙂", "✅", "🎉", "👋🏿", "🇻🇳",
]
END_PUNCT = {
    "zh": "。，！？：", "ja": "。、！？", "hi": "।,?", "bn": "।,?", "ar": ".،؟", "th": " ",
}
# Visually confusable characters, both ways within each group (OCR substitutions).
CONFUSABLE_GROUPS = [
    "l1I|", "O0Q", "o0", "ec", "ao", "hb", "uv", "nh", "S5", "B8ß", "gq9", "tf", "il", "Z2", "rn", "ÓÒO",
    "éèe", "áàa", "łl", "ąa", "ęe", "ñn", "üuù", "öoó", "çc", "ãâa", "ơo", "ưu", "đd",
    "بتثنيى", "جحخ", "دذ", "رز", "سش", "صض", "طظ", "عغ", "فق", "هة", "أاإآ",
    "बव", "घध", "मभ", "पषय", "डङ", "टठ", "िी", "ेै", "ोौ", "१९", "२३",
    "বর", "য়য", "িী", "তভ", "কফ",
    "னண", "லளழ", "ரற", "ிீ", "ுூ", "பய",
    "ดต", "บปษ", "ขช", "ผฝ", "พฟ", "ถภ", "่้", "ำา",
    "己已巳", "未末", "土士", "人入八", "日曰目", "大太犬", "天夭", "千干于", "王玉主", "田由甲申", "刀力",
    "贝见", "体休", "们门", "，,", "。.", "：:", "（(", "）)",
    "ソン", "シツ", "ー一", "カ力", "ロ口", "エ工", "ニ二", "へヘ", "りリ", "ばぱ", "はほ",
]
INSERTED = ".,'`:;|·-" + "\u0301"  # stray specks; a lone combining acute joins the preceding cluster
MARK_SWAPS = ["\u0300\u0301\u0303\u0309\u0323", "\u0300\u0301\u0302", "\u0308\u0301", "\u0e48\u0e49\u0e4a\u0e4b"]


def _confusables() -> dict[str, str]:
    table: dict[str, str] = {}
    for group in CONFUSABLE_GROUPS:
        for ch in group:
            table[ch] = table.get(ch, "") + group.replace(ch, "")
    return table


CONFUSABLE = _confusables()


def word_lists(n: int = 5000) -> dict[str, list[str]]:
    """Word lists per language: wordfreq's most frequent words, Thai from the list above."""
    import wordfreq

    lists = {}
    for lang in LANGS:
        lists[lang] = THAI_WORDS if lang == "th" else [w for w in wordfreq.top_n_list(lang, n) if w.strip()]
    return lists


def make_line(rng: random.Random, lang: str, words: list[str]) -> str:
    """One reference line of 20-120 code points."""
    target = rng.randint(20, 120)
    sep = "" if lang in NO_SPACES else " "
    parts: list[str] = []
    length = 0
    while length < target:
        r = rng.random()
        if r < 0.04:
            w = str(rng.choice([rng.randint(1, 99), rng.randint(1900, 2030), rng.randint(100, 99999)]))
        elif lang == "en" and r < 0.25:
            w = rng.choice(EMOJI)
        else:
            w = rng.choice(words)
        if lang == "th" and parts and rng.random() < 0.7:
            w = parts.pop() + w  # Thai: words run together, spaces between phrases
        add = len(w) + (len(sep) if parts else 0)
        if parts and length + add > 120:
            break
        parts.append(w)
        length = len(sep.join(parts))
    line = sep.join(parts)
    if lang in ("de", "fr", "es", "pl", "en", "vi") and line[:1].isalpha():
        line = line[0].upper() + line[1:]
    if rng.random() < 0.5 and len(line) < 120:
        line += rng.choice(END_PUNCT.get(lang, ".,;:!?")).strip()
    return line.strip()


def _drop_mark(cluster: str, rng: random.Random) -> str | None:
    d = unicodedata.normalize("NFD", cluster)
    marks = [k for k, ch in enumerate(d) if k > 0 and unicodedata.category(ch) == "Mn"]
    if not marks:
        return None
    k = rng.choice(marks)
    return unicodedata.normalize("NFC", d[:k] + d[k + 1:])


def _swap_mark(cluster: str, rng: random.Random) -> str | None:
    d = unicodedata.normalize("NFD", cluster)
    for k, ch in enumerate(d):
        for group in MARK_SWAPS:
            if k > 0 and ch in group:
                return unicodedata.normalize("NFC", d[:k] + rng.choice(group.replace(ch, "")) + d[k + 1:])
    return None


def _confuse(cluster: str, rng: random.Random) -> str | None:
    alts = CONFUSABLE.get(cluster)
    if alts:
        return rng.choice(alts)
    if len(cluster) > 1 and cluster[0] in CONFUSABLE:  # base letter of a cluster, marks kept
        return rng.choice(CONFUSABLE[cluster[0]]) + cluster[1:]
    return None


def add_noise(rng: random.Random, line: str, lang: str) -> str:
    """The OCR-like output for one reference line."""
    if rng.random() < 0.15:
        return line
    cl = CLUSTER.findall(line)
    n_edits = max(1, int(rng.uniform(0.02, 0.10) * len(cl) + rng.random()))
    ops = ["confuse"] * 35 + ["mark"] * 20 + ["insert"] * 12 + ["delete"] * 13 + ["merge"] * 10 + ["split"] * 10
    for _ in range(n_edits):
        if not cl:
            break
        op = rng.choice(ops)
        pos = rng.randrange(len(cl))
        if op in ("confuse", "mark"):
            new = None
            for _try in range(12):
                p = rng.randrange(len(cl))
                if op == "mark":
                    new = _drop_mark(cl[p], rng) if rng.random() < 0.7 else _swap_mark(cl[p], rng)
                else:
                    new = _confuse(cl[p], rng)
                if new is not None:
                    pos = p
                    break
            cl[pos] = new if new is not None else rng.choice(cl)
        elif op == "insert":
            cl.insert(pos, rng.choice(INSERTED) if rng.random() < 0.7 else cl[pos])
        elif op == "delete":
            del cl[pos]
        elif op == "merge":
            spaces = [k for k, c in enumerate(cl) if c == " "]
            if spaces:
                del cl[rng.choice(spaces)]
            else:
                cl.insert(pos, " ")
        else:  # split a word
            cl.insert(pos, " ")
    return "".join(cl)


def build(n_lines: int, seed: int = SEED, out: Path = OUT) -> tuple[Path, Path]:
    """Write ``refs.<n>.jsonl`` and ``hyps.<n>.jsonl`` (and a manifest) under ``out``; return both paths."""
    out.mkdir(parents=True, exist_ok=True)
    refs_path, hyps_path = out / f"refs.{n_lines}.jsonl", out / f"hyps.{n_lines}.jsonl"
    lists = word_lists()
    rng = random.Random(seed)
    langs, weights = list(LANGS), list(LANGS.values())
    per_lang: dict[str, int] = {}
    counts = {"nfd_refs": 0, "nfd_hyps": 0, "exact": 0}
    with open(refs_path, "w", encoding="utf-8") as fr, open(hyps_path, "w", encoding="utf-8") as fh:
        for i in range(n_lines):
            lang = rng.choices(langs, weights)[0]
            k = per_lang[lang] = per_lang.get(lang, 0) + 1
            ref = make_line(rng, lang, lists[lang])
            hyp = add_noise(rng, ref, lang)
            counts["exact"] += hyp == ref
            if rng.random() < 0.03:
                ref, counts["nfd_refs"] = unicodedata.normalize("NFD", ref), counts["nfd_refs"] + 1
            if rng.random() < 0.03:
                hyp, counts["nfd_hyps"] = unicodedata.normalize("NFD", hyp), counts["nfd_hyps"] + 1
            rid, doc = f"{lang}-{i:06d}", f"{lang}/d{(k - 1) // 50:04d}"
            fr.write(json.dumps({"id": rid, "doc": doc, "lang": lang, "text": ref}, ensure_ascii=False) + "\n")
            fh.write(json.dumps({"id": rid, "doc": doc, "lang": lang, "text": hyp}, ensure_ascii=False) + "\n")
    manifest = {
        "lines": n_lines, "seed": seed, "wordfreq": version("wordfreq"), "regex": version("regex"),
        "python": sys.version.split()[0], "lines_per_lang": dict(sorted(per_lang.items())), **counts,
    }
    (out / f"corpus.{n_lines}.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return refs_path, hyps_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=100_000, help="number of lines (default 100000)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    refs, hyps = build(args.lines, args.seed, args.out)
    print(f"wrote {refs} and {hyps}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
