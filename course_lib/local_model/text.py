"""Reading text the way the toy model does: words, Chinese phrases, concepts, places, numbers.

English is split into words and reduced to crude stems ("notes" -> "note", "searching" ->
"search"); Chinese is cut greedily into known phrases, and what is left becomes character
bigrams (no dictionary needed to match "快递" in "查快递" against "查询快递物流").
Each piece is then mapped to a *concept* through a small synonym table ("weather", "天气"
and "forecast" are one concept), so a request and a tool description meet in the middle
whatever words they use.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

CJK = "\u3400-\u9fff\uf900-\ufaff"
MAX_READ = 2000  # characters of any one text the model reads: a huge prompt costs bounded time
CJK_RUN = re.compile(f"[{CJK}]+")
WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?")
QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|「([^」]+)」|『([^』]+)』|(?<![A-Za-z])'([^']+)'")
# An arithmetic expression: digits joined by at least one operator ("12 * (3 + 4)", "2+3").
EXPRESSION = re.compile(r"[-+(]*\d[\d\s.+\-*/×÷^%()]*[+\-*/×÷^%][\d\s.+\-*/×÷^%()]*\d\)*")

# Concept -> words and phrases that mean it (English stems are matched after stemming).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "weather": tuple(
        "weather forecast temperature temp rain sunny cloudy "
        "snow 天气 气温 温度 下雨 预报 晴天".split()
    ),
    "place": tuple("city location place town where country 城市 地点 位置 地方 哪里".split()),
    "note": tuple("note memo notebook jot 笔记 备忘 记事".split()),
    "search": tuple("search find look lookup query 搜索 查找 寻找 搜 找".split()),
    "time": tuple("time clock hour timezone 时间 几点 时区".split()),
    "date": tuple("date calendar-day 日期 几号".split()),
    "calc": tuple(
        "calculate calculator compute math arithmetic sum plus minus "
        "multiply divide expression evaluate 计算 算术 等于 算式 表达式".split()
    ),
    "email": tuple("email e-mail mail inbox 邮件 邮箱 发邮件".split()),
    "send": tuple("send 发送 发给".split()),
    "translate": tuple("translate translation translator 翻译".split()),
    "language": tuple(
        "language english chinese french german japanese spanish "
        "语言 英文 英语 中文 汉语 法语 日语 德语".split()
    ),
    "currency": tuple(
        "currency exchange convert conversion dollar usd cny rmb yuan euro "
        "eur jpy yen 汇率 换算 兑换 人民币 美元 欧元 日元 货币".split()
    ),
    "stock": tuple("stock share ticker 股票 股价".split()),
    "reminder": tuple("remind reminder alarm 提醒 闹钟".split()),
    "calendar": tuple("calendar event meeting schedule appointment 日程 会议 安排 预约".split()),
    "news": tuple("news headline 新闻 头条".split()),
    "file": tuple("file document folder 文件 文档".split()),
    "music": tuple("music song play playlist 音乐 歌曲 播放".split()),
    "contact": tuple("contact phone person people 联系人 电话".split()),
    "tag": tuple("tag label category 标签 分类".split()),
    "count": tuple("limit max maximum top most count 最多 数量 条数".split()),
    "flight": tuple("flight fly plane airline airport 航班 机票 飞机".split()),
    "hotel": tuple("hotel room 酒店 宾馆".split()),
    "restaurant": tuple("restaurant food eat dinner lunch 餐厅 饭店 吃饭".split()),
    "unit": tuple("unit celsius fahrenheit 单位 摄氏 华氏".split()),
    "wiki": tuple("wikipedia wiki encyclopedia 百科".split()),
    "user": tuple("user account profile 用户 账户".split()),
    "web": tuple("web internet online website page 网上 上网 网页 互联网 网站".split()),
    "subject": tuple("subject title headline 主题 标题".split()),
    "order": tuple("order purchase package parcel delivery shipping 订单 快递 包裹 物流".split()),
}

# Known places (English and Chinese): they fill place-like parameters and count as "place".
PLACES: tuple[str, ...] = (
    "Beijing",
    "Shanghai",
    "Shenzhen",
    "Guangzhou",
    "Hangzhou",
    "Chengdu",
    "Wuhan",
    "Xi'an",
    "Nanjing",
    "Hong Kong",
    "Taipei",
    "Tokyo",
    "Osaka",
    "Seoul",
    "Singapore",
    "Bangkok",
    "Sydney",
    "London",
    "Paris",
    "Berlin",
    "Madrid",
    "Rome",
    "Amsterdam",
    "Moscow",
    "New York",
    "San Francisco",
    "Los Angeles",
    "Seattle",
    "Chicago",
    "Boston",
    "Toronto",
    "Vancouver",
    "Mexico City",
    "Cairo",
    "Dubai",
    "Mumbai",
    "Delhi",
    "Atlantis",
    "北京",
    "上海",
    "深圳",
    "广州",
    "杭州",
    "成都",
    "武汉",
    "西安",
    "南京",
    "香港",
    "台北",
    "东京",
    "大阪",
    "首尔",
    "新加坡",
    "伦敦",
    "巴黎",
    "柏林",
    "纽约",
    "悉尼",
    "重庆",
    "天津",
    "苏州",
)
# Known people: they fill person-like parameters.
PEOPLE: tuple[str, ...] = (
    "Alice",
    "Bob",
    "Carol",
    "Dave",
    "Eve",
    "Mallory",
    "Ada",
    "Grace",
    "Linus",
    "张三",
    "李四",
    "王五",
    "小明",
    "小红",
    "李雷",
    "韩梅梅",
)
LANGUAGES: dict[str, str] = {
    "english": "English",
    "chinese": "Chinese",
    "french": "French",
    "german": "German",
    "japanese": "Japanese",
    "spanish": "Spanish",
    "英文": "English",
    "英语": "English",
    "中文": "Chinese",
    "汉语": "Chinese",
    "法语": "French",
    "日语": "Japanese",
    "德语": "German",
}
CURRENCIES: dict[str, str] = {
    "usd": "USD",
    "cny": "CNY",
    "rmb": "CNY",
    "eur": "EUR",
    "jpy": "JPY",
    "gbp": "GBP",
    "hkd": "HKD",
    "dollar": "USD",
    "dollars": "USD",
    "yuan": "CNY",
    "euro": "EUR",
    "euros": "EUR",
    "yen": "JPY",
    "美元": "USD",
    "人民币": "CNY",
    "欧元": "EUR",
    "日元": "JPY",
    "英镑": "GBP",
    "港币": "HKD",
}

STOP_WORDS = frozenset(
    """a an the is are was were be been being am do does did done what whats how when which who
    whom why can could would should will shall may might must please tell me my mine i i'm you
    your it its this that these those of in on at for to from by with about and or but if then
    so as into than too very just also some any all get gets give show let lets want need like
    know there here our we us they them their he she his her has have had not no yes now today
    tomorrow tonight current currently up out over use used using tool tools function data stuff
    thing things something info information value values result results return returns helper
    help handle handles process misc various general utility does doing okay ok hi hello hey
    thanks thank string number name given provided e.g etc one new""".split()
)
# Chinese function words and fillers, removed before bigrams are formed.
STOP_PHRASES: tuple[str, ...] = tuple(
    "怎么样 什么 一下 请问 请 帮我 帮 我的 我们 我 你 的 了 吗 呢 吧 是 在 和 与 及 把 "
    "给 查询 获取 今天 明天 现在 一个 这个 那个 可以 能 要 想 看看 告诉 多少 有 都 也 还 就 用 "
    "以及 查一下 查 哪 相关 有关 关于 一些 或者 个 条 些 中 里 上 下 对 从 到".split()
)

_STEM_EXCEPTIONS = {"news": "news", "always": "always", "status": "status", "series": "series"}


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A crude English stem, applied alike to requests and tool text (that is all it needs)."""
    word = word.lower().strip("'-")
    if word.endswith("'s"):
        word = word[:-2]
    if word in _STEM_EXCEPTIONS or len(word) <= 3:
        return word
    for suffix, replacement in (
        ("ies", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)] + replacement
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2]:
                base = base[:-1]  # running -> run, planned -> plan
            if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
                base = word[:-1]  # notes -> note, not "not"
            return base
    return word


def _build_concepts() -> dict[str, str]:
    table: dict[str, str] = {}
    for concept, words in SYNONYMS.items():
        for word in words:
            table[word if CJK_RUN.match(word) else stem(word)] = concept
    for place in PLACES:
        table[place if CJK_RUN.match(place) else place.lower()] = "place"
    for person in PEOPLE:
        table[person if CJK_RUN.match(person) else person.lower()] = "contact"
    return table


CONCEPTS = _build_concepts()
# Longest first, for greedy segmentation of Chinese runs.
_CJK_VOCABULARY = sorted(
    {w for w in list(CONCEPTS) + list(STOP_PHRASES) + list(PEOPLE) if CJK_RUN.fullmatch(w)},
    key=len,
    reverse=True,
)
_MULTIWORD_PLACES = sorted((p for p in PLACES if " " in p), key=len, reverse=True)


@dataclass(frozen=True)
class Unit:
    """One meaningful piece of text: a word, a known phrase, or a leftover Chinese run.

    ``alternatives`` are the concepts it may stand for: one for a word, the bigrams for a leftover
    Chinese run (the unit matches when any of them does).
    """

    text: str
    alternatives: frozenset[str]


def is_chinese(text: str) -> bool:
    """Whether the text contains any Chinese characters (they need the Chinese segmenter)."""
    return bool(CJK_RUN.search(text))


def mostly_chinese(text: str) -> bool:
    """Whether to answer in Chinese: Chinese characters outweigh Latin letters (1 to 2)."""
    chinese = sum(len(run) for run in CJK_RUN.findall(text))
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    return chinese > 0 and chinese * 2 >= latin


@functools.lru_cache(maxsize=4096)  # tool descriptions come back with every request
def units(text: str) -> tuple[Unit, ...]:
    """The meaningful pieces of a text, stop words removed, each mapped to its concept(s).

    Quoted text is left out (it is an argument, not what the request is about), and an arithmetic
    expression counts as the concept "calc". Only the first :data:`MAX_READ` characters count.
    """
    found: list[Unit] = []
    lowered = QUOTED.sub(" ", text[:MAX_READ])
    for match in EXPRESSION.finditer(lowered):
        found.append(Unit(match.group(0).strip(), frozenset({"calc"})))
    lowered = EXPRESSION.sub(" ", lowered)
    for place in _MULTIWORD_PLACES:  # "New York" is one place, not "new" + "york"
        if place.lower() in lowered.lower():
            found.append(Unit(place, frozenset({"place"})))
            lowered = re.sub(re.escape(place), " ", lowered, flags=re.IGNORECASE)
    for piece in re.split(f"([{CJK}]+)", lowered):
        if not piece:
            continue
        if CJK_RUN.fullmatch(piece):
            found.extend(_chinese_units(piece))
            continue
        for word in _words(piece):
            key = stem(word)
            if word.lower() in STOP_WORDS or key in STOP_WORDS or key.isdigit():
                continue
            concept = CONCEPTS.get(key, CONCEPTS.get(word.lower(), key))
            found.append(Unit(word, frozenset({concept})))
    return tuple(found)


def _words(text: str) -> list[str]:
    """English words, splitting snake_case and camelCase names into their parts."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    return WORD.findall(spaced)


def _chinese_units(run: str) -> list[Unit]:
    found: list[Unit] = []
    leftover = ""
    position = 0
    while position < len(run):
        match = next((w for w in _CJK_VOCABULARY if run.startswith(w, position)), None)
        if match is None:
            leftover += run[position]
            position += 1
            continue
        if leftover:
            found.append(_leftover_unit(leftover))
            leftover = ""
        if match not in STOP_PHRASES:
            found.append(Unit(match, frozenset({CONCEPTS.get(match, match)})))
        position += len(match)
    if leftover:
        found.append(_leftover_unit(leftover))
    return found


def _leftover_unit(run: str) -> Unit:
    grams = {run[i : i + 2] for i in range(len(run) - 1)} or {run}
    return Unit(run, frozenset(grams))


def concepts(text: str) -> set[str]:
    """Every concept a text can stand for (all alternatives of all its units)."""
    return {alt for unit in units(text) for alt in unit.alternatives}


def split_clauses(text: str) -> list[str]:
    """Split a request into clauses that may each need their own tool.

    Sentences end at . ? ! ; and their Chinese forms; "and also", "then", "另外", "然后", "顺便",
    "并且" also start a new clause. Plain "and" and commas do not (they list things).
    """
    parts = re.split(
        r"(?<=[?!;？！；。])\s*|(?<=[a-z0-9\)])\.\s+|\s+(?:and also|and then|then|also)\s+"
        r"|另外|然后|顺便|并且|同时",
        text,
        flags=re.IGNORECASE,
    )
    return [p.strip() for p in parts if p and p.strip(" ,，.。")]
