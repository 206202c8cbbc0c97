"""The benchmark corpus: varied tool functions and what a correct schema must say about them.

Every function has a Google-style docstring documenting every argument (transformers'
``get_json_schema`` refuses functions without one, and we want to measure it, not trip it); two
of them are nothing but their sections (``WITHOUT_DESCRIPTION``). The last eight add the shapes
other projects' test suites exercise: ``pydantic.Field()`` as a default and inside
``Annotated``, nested models, dataclasses and TypedDicts with defaults and documented fields.
``EXPECTED`` is written by hand from the signatures, independently of any converter: for each
parameter its JSON type, whether it is required (has no default), whether it is nullable (and
then encoded as JSON Schema ``null``, not OpenAPI ``nullable``), enum values, the item type of
arrays, the member types of unions, and for nested objects which of their fields are required.
"""

import dataclasses
import datetime as dt
import enum
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, Field
from typing_extensions import NotRequired, TypedDict


class Unit(enum.Enum):
    CELSIUS = "c"
    FAHRENHEIT = "f"


class Priority(enum.IntEnum):
    LOW = 1
    NORMAL = 2
    HIGH = 3


class Address(BaseModel):
    street: str
    city: str = Field(description="City, e.g. 上海")
    postcode: Optional[str] = None


class Contact(TypedDict):
    name: str
    email: NotRequired[str]


@dataclasses.dataclass
class LineItem:
    sku: str
    quantity: int = 1


def _e(
    json_type: str | None = None,
    *,
    required: bool = True,
    nullable: bool = False,
    enum: list | None = None,
    items: str | None = None,
    union: list[str] | None = None,
    fields: dict[str, bool] | None = None,
) -> dict:
    return {
        "type": json_type,
        "required": required,
        "nullable": nullable,
        "enum": enum,
        "items": items,
        "union": union,
        "fields": fields,  # for an object: which of its fields are required
    }


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. 北京 or Paris.
        unit: Temperature unit.
    """
    return ""


def search_notes(keyword: str, limit: int = 5, tags: Optional[list[str]] = None) -> list[str]:
    """Search the user's notes.

    Args:
        keyword: Word to look for.
        limit: Maximum number of notes.
        tags: Only notes with one of these tags.
    """
    return []


def set_alarm(hour: int, minute: int = 0, repeat: bool = False) -> str:
    """Set an alarm on the phone.

    Args:
        hour: Hour of the day, 0-23.
        minute: Minute of the hour.
        repeat: Repeat every day.
    """
    return ""


def convert_currency(amount: float, source: str, target: str) -> float:
    """Convert an amount between currencies.

    Args:
        amount: How much money.
        source: Currency code to convert from, e.g. CNY.
        target: Currency code to convert to, e.g. EUR.
    """
    return 0.0


def translate(text: str, target_language: Literal["en", "zh", "fr", "de"]) -> str:
    """Translate a text.

    Args:
        text: The text, e.g. 你好，世界.
        target_language: Language to translate into.
    """
    return ""


def send_email(to: list[str], subject: str, body: str, cc: list[str] | None = None) -> bool:
    """Send an email.

    Args:
        to: Recipients.
        subject: Subject line.
        body: Plain-text body.
        cc: Copy recipients.
    """
    return True


def book_table(restaurant: str, people: int, when: dt.datetime, note: str | None = None) -> str:
    """Book a restaurant table.

    Args:
        restaurant: Restaurant name, e.g. 全聚德.
        people: Number of guests.
        when: Date and time of the booking.
        note: Special requests.
    """
    return ""


def get_stock_price(symbol: str, exchange: Literal["NASDAQ", "NYSE", "SSE", "HKEX"] = "NASDAQ"):
    """Get the latest stock price.

    Args:
        symbol: Ticker symbol.
        exchange: Stock exchange.
    """
    return 0.0


def add_todo(title: str, priority: Priority = Priority.NORMAL, done: bool = False) -> int:
    """Add an item to the to-do list.

    Args:
        title: What to do, e.g. 买牛奶.
        priority: How urgent it is.
        done: Whether it is already done.
    """
    return 0


def set_thermostat(temperature: float, unit: Unit = Unit.CELSIUS) -> str:
    """Set the thermostat.

    Args:
        temperature: Target temperature.
        unit: Temperature unit.
    """
    return ""


def lookup_user(user_id: Union[int, str]) -> dict:
    """Look up a user by numeric id or user name.

    Args:
        user_id: Numeric id or user name.
    """
    return {}


def average(values: list[float]) -> float:
    """Average of some numbers.

    Args:
        values: The numbers.
    """
    return 0.0


def route(
    origin: str,
    destination: str,
    mode: Literal["walk", "bike", "car", "transit"] = "car",
    avoid_tolls: bool = False,
) -> str:
    """Plan a route between two places.

    Args:
        origin: Start, e.g. 北京南站.
        destination: End, e.g. 天安门.
        mode: How to travel.
        avoid_tolls: Avoid toll roads.
    """
    return ""


def create_event(
    title: str, start: dt.datetime, end: Optional[dt.datetime] = None, attendees: Sequence[str] = ()
) -> str:
    """Create a calendar event.

    Args:
        title: Event title, e.g. 周会.
        start: Start time.
        end: End time; one hour after start when missing.
        attendees: People to invite.
    """
    return ""


def ship_order(order_id: str, address: Address, express: bool = False) -> str:
    """Ship an order to an address.

    Args:
        order_id: Order number.
        address: Delivery address.
        express: Use express delivery.
    """
    return ""


def add_contact(contact: Contact, group: Optional[str] = None) -> bool:
    """Add a contact to the address book.

    Args:
        contact: Name and optional email.
        group: Group to add the contact to.
    """
    return True


def create_invoice(customer: str, items: list[LineItem], currency: str = "CNY") -> str:
    """Create an invoice.

    Args:
        customer: Customer name, e.g. 张三.
        items: Invoice lines.
        currency: Currency code.
    """
    return ""


def resize_image(path: str, width: int, height: int, keep_ratio: bool = True) -> str:
    """Resize an image file.

    Args:
        path: Path of the image.
        width: New width in pixels.
        height: New height in pixels.
        keep_ratio: Keep the aspect ratio.
    """
    return ""


def count_words(text: str, ignore_case: bool = True) -> int:
    """Count the words in a text.

    Args:
        text: Any text, English or 中文.
        ignore_case: Treat upper and lower case alike.
    """
    return 0


def schedule_meeting(
    topic: str, day: dt.date, duration_minutes: int = 30, room: Optional[str] = None
) -> str:
    """Schedule a meeting.

    Args:
        topic: Meeting topic.
        day: Day of the meeting.
        duration_minutes: Length of the meeting.
        room: Meeting room, e.g. 会议室A.
    """
    return ""


def rate_movie(title: str, stars: Literal[1, 2, 3, 4, 5]) -> str:
    """Rate a movie.

    Args:
        title: Movie title, e.g. 霸王别姬.
        stars: Rating from one to five stars.
    """
    return ""


def get_exchange_rates(base: str, symbols: list[str]) -> dict:
    """Get exchange rates.

    Args:
        base: Base currency.
        symbols: Currencies to quote.
    """
    return {}


def filter_products(
    category: str,
    max_price: float | None = None,
    in_stock: bool = True,
    sort: Literal["price", "rating", "newest"] = "rating",
) -> list:
    """Filter the product catalogue.

    Args:
        category: Product category, e.g. 手机.
        max_price: Highest price.
        in_stock: Only products in stock.
        sort: Sort order.
    """
    return []


def log_expense(amount: Decimal, category: str, note: str = "") -> str:
    """Log an expense.

    Args:
        amount: Amount spent.
        category: Expense category.
        note: Free text note.
    """
    return ""


def get_order(order_id: uuid.UUID) -> dict:
    """Get an order by id.

    Args:
        order_id: The order's UUID.
    """
    return {}


def read_file(path: Path, encoding: str = "utf-8") -> str:
    """Read a text file.

    Args:
        path: File path.
        encoding: Text encoding.
    """
    return ""


def play_music(query: str, shuffle: bool = False, volume: Annotated[int, Field(ge=0, le=100)] = 50):
    """Play music.

    Args:
        query: Song, artist or album, e.g. 周杰伦.
        shuffle: Shuffle the queue.
        volume: Volume, 0-100.
    """
    return ""


def split_bill(total: float, people: int, tip_percent: float = 10.0) -> float:
    """Split a bill between people.

    Args:
        total: The bill total.
        people: Number of people.
        tip_percent: Tip in percent.
    """
    return 0.0


def tag_photo(photo_id: str, tags: set[str]) -> bool:
    """Tag a photo.

    Args:
        photo_id: Photo id.
        tags: Tags to add; duplicates are ignored.
    """
    return True


def plot_point(point: tuple[float, float], label: Optional[str] = None) -> str:
    """Plot a point.

    Args:
        point: The x and y coordinates.
        label: Text shown next to the point.
    """
    return ""


def find_flights(
    origin: str,
    destination: str,
    date: dt.date,
    passengers: int = 1,
    cabin: Literal["economy", "business", "first"] = "economy",
) -> list:
    """Find flights.

    Args:
        origin: Airport code, e.g. PEK.
        destination: Airport code, e.g. SHA.
        date: Departure date.
        passengers: Number of passengers.
        cabin: Cabin class.
    """
    return []


def update_profile(
    display_name: Optional[str] = None, bio: Optional[str] = None, public: Optional[bool] = None
) -> bool:
    """Update the user's profile; missing fields stay unchanged.

    Args:
        display_name: New display name, e.g. 小明.
        bio: New biography.
        public: Make the profile public.
    """
    return True


def calculate_bmi(weight_kg: float, height_m: float) -> float:
    """Compute the body mass index.

    Args:
        weight_kg: Weight in kilograms.
        height_m: Height in metres.
    """
    return 0.0


def get_news(topic: str, language: Literal["en", "zh"] = "en", count: int = 5) -> list:
    """Get news headlines.

    Args:
        topic: News topic, e.g. 科技.
        language: Headline language.
        count: Number of headlines.
    """
    return []


def set_reminder(message: str, minutes: int, urgent: bool = False) -> str:
    """Set a reminder.

    Args:
        message: What to remind about, e.g. 开会.
        minutes: Minutes from now.
        urgent: Mark as urgent.
    """
    return ""


def query_database(table: str, columns: list[str], limit: Optional[int] = 100) -> list:
    """Run a read-only query.

    Args:
        table: Table name.
        columns: Columns to return.
        limit: Maximum number of rows; none for all.
    """
    return []


def nearby_places(
    latitude: float,
    longitude: float,
    radius_m: int = 500,
    kinds: Optional[list[Literal["cafe", "park", "museum"]]] = None,
) -> list:
    """Find places nearby.

    Args:
        latitude: Latitude in degrees.
        longitude: Longitude in degrees.
        radius_m: Search radius in metres.
        kinds: Kinds of places.
    """
    return []


def compare_numbers(a: Union[int, float], b: Union[int, float]) -> int:
    """Compare two numbers.

    Args:
        a: First number.
        b: Second number.
    """
    return 0


def toggle_light(room: str, on: bool) -> str:
    """Switch a light on or off.

    Args:
        room: Room name, e.g. 客厅.
        on: True to switch on.
    """
    return ""


def summarize(text: str, max_sentences: int = 3, style: Literal["bullet", "prose"] = "prose"):
    """Summarize a text.

    Args:
        text: Text to summarize.
        max_sentences: Length of the summary.
        style: Output style.
    """
    return ""


def record_scores(scores: dict[str, int]) -> int:
    """Record game scores.

    Args:
        scores: Score per player name, e.g. {"李雷": 3}.
    """
    return 0


def assign_task(task: str, assignee: Union[int, str, None], due: Optional[dt.date] = None):
    """Assign a task.

    Args:
        task: Task description.
        assignee: Person id or name; none for unassigned.
        due: Due date.
    """
    return ""


def weather_alerts(region: str, severity: Optional[Literal["minor", "severe"]] = None) -> list:
    """List weather alerts.

    Args:
        region: Region, e.g. 广东.
        severity: Only alerts of this severity.
    """
    return []


# -- shapes other projects' test suites exercise (issue 11) --------------------------------------


def reserve_seats(
    count: int = Field(..., ge=1, le=9, description="How many seats, 1 to 9"),
    section: str = Field(default="A", max_length=1),
) -> str:
    """Reserve seats in a theatre.

    Args:
        count: Number of seats.
        section: Section letter.
    """
    return ""


def set_volume(
    mute: Annotated[bool, Field(default=False, description="Silence the speaker")],
    level: Annotated[int, Field(ge=0, le=100)] = 30,
) -> str:
    """Set the speaker volume.

    Args:
        mute: Whether to mute.
        level: Volume from 0 to 100.
    """
    return ""


def rate_limit(
    requests: Annotated[int, Field(default=60, gt=0)],
    window_s: Annotated[float, Field(default=1.0, gt=0)],
) -> str:
    """Configure the API rate limit.

    Args:
        requests: Requests allowed per window.
        window_s: Window length in seconds.
    """
    return ""


class Preferences(BaseModel):
    """A user's preferences.

    Attributes:
        language: Interface language, e.g. zh.
        units: Measurement system.
        newsletter: Whether to send the newsletter.
    """

    language: str = "zh"
    units: Literal["metric", "imperial"] = "metric"
    newsletter: bool = False


def update_preferences(user_id: str, preferences: Preferences) -> bool:
    """Update a user's preferences.

    Args:
        user_id: The user, e.g. u-42.
        preferences: The new preferences.
    """
    return True


@dataclasses.dataclass
class Room:
    """A meeting room.

    Args:
        name: Room name, e.g. 长城.
        floor: Floor number.
        capacity: Seats, if known.
    """

    name: str
    floor: int = 1
    capacity: Optional[int] = None


def book_room(room: Room, hours: int = 1) -> str:
    """Book a meeting room.

    Args:
        room: Which room.
        hours: For how long.
    """
    return ""


def convert_length(value: float, unit: Literal["m", "ft"] = "m") -> float:
    """
    Args:
        value: The length to convert.
        unit: Its unit.
    """
    return 0.0


def lookup_city(name: str, country: Optional[str] = None) -> dict:
    """Args:
        name: City name, e.g. 上海.
        country: ISO country code.

    Raises:
        KeyError: The city is unknown.
    """
    return {}


class OrderFilter(TypedDict):
    """Which orders to list.

    Args:
        status: Order status.
        since: Earliest order date.
    """

    status: Literal["open", "shipped", "closed"]
    since: NotRequired[dt.date]


def search_orders(filters: OrderFilter, page: Annotated[int, Field(ge=1)] = 1) -> list:
    """Search orders.

    Args:
        filters: What to match.
        page: Result page.
    """
    return []


# Functions whose docstring is only sections: a correct tool has no description at all.
WITHOUT_DESCRIPTION = {"convert_length", "lookup_city"}

CORPUS: list[Callable[..., Any]] = [
    get_weather,
    search_notes,
    set_alarm,
    convert_currency,
    translate,
    send_email,
    book_table,
    get_stock_price,
    add_todo,
    set_thermostat,
    lookup_user,
    average,
    route,
    create_event,
    ship_order,
    add_contact,
    create_invoice,
    resize_image,
    count_words,
    schedule_meeting,
    rate_movie,
    get_exchange_rates,
    filter_products,
    log_expense,
    get_order,
    read_file,
    play_music,
    split_bill,
    tag_photo,
    plot_point,
    find_flights,
    update_profile,
    calculate_bmi,
    get_news,
    set_reminder,
    query_database,
    nearby_places,
    compare_numbers,
    toggle_light,
    summarize,
    record_scores,
    assign_task,
    weather_alerts,
    reserve_seats,
    set_volume,
    rate_limit,
    update_preferences,
    book_room,
    convert_length,
    lookup_city,
    search_orders,
]

STR, INT, NUM, BOOL, ARR, OBJ = "string", "integer", "number", "boolean", "array", "object"

EXPECTED: dict[str, dict[str, dict]] = {
    "get_weather": {"city": _e(STR), "unit": _e(STR, required=False, enum=["c", "f"])},
    "search_notes": {
        "keyword": _e(STR),
        "limit": _e(INT, required=False),
        "tags": _e(ARR, required=False, nullable=True, items=STR),
    },
    "set_alarm": {
        "hour": _e(INT),
        "minute": _e(INT, required=False),
        "repeat": _e(BOOL, required=False),
    },
    "convert_currency": {"amount": _e(NUM), "source": _e(STR), "target": _e(STR)},
    "translate": {"text": _e(STR), "target_language": _e(STR, enum=["en", "zh", "fr", "de"])},
    "send_email": {
        "to": _e(ARR, items=STR),
        "subject": _e(STR),
        "body": _e(STR),
        "cc": _e(ARR, required=False, nullable=True, items=STR),
    },
    "book_table": {
        "restaurant": _e(STR),
        "people": _e(INT),
        "when": _e(STR),
        "note": _e(STR, required=False, nullable=True),
    },
    "get_stock_price": {
        "symbol": _e(STR),
        "exchange": _e(STR, required=False, enum=["NASDAQ", "NYSE", "SSE", "HKEX"]),
    },
    "add_todo": {
        "title": _e(STR),
        "priority": _e(INT, required=False, enum=[1, 2, 3]),
        "done": _e(BOOL, required=False),
    },
    "set_thermostat": {"temperature": _e(NUM), "unit": _e(STR, required=False, enum=["c", "f"])},
    "lookup_user": {"user_id": _e(union=[INT, STR])},
    "average": {"values": _e(ARR, items=NUM)},
    "route": {
        "origin": _e(STR),
        "destination": _e(STR),
        "mode": _e(STR, required=False, enum=["walk", "bike", "car", "transit"]),
        "avoid_tolls": _e(BOOL, required=False),
    },
    "create_event": {
        "title": _e(STR),
        "start": _e(STR),
        "end": _e(STR, required=False, nullable=True),
        "attendees": _e(ARR, required=False, items=STR),
    },
    "ship_order": {"order_id": _e(STR), "address": _e(OBJ), "express": _e(BOOL, required=False)},
    "add_contact": {"contact": _e(OBJ), "group": _e(STR, required=False, nullable=True)},
    "create_invoice": {
        "customer": _e(STR),
        "items": _e(ARR, items=OBJ),
        "currency": _e(STR, required=False),
    },
    "resize_image": {
        "path": _e(STR),
        "width": _e(INT),
        "height": _e(INT),
        "keep_ratio": _e(BOOL, required=False),
    },
    "count_words": {"text": _e(STR), "ignore_case": _e(BOOL, required=False)},
    "schedule_meeting": {
        "topic": _e(STR),
        "day": _e(STR),
        "duration_minutes": _e(INT, required=False),
        "room": _e(STR, required=False, nullable=True),
    },
    "rate_movie": {"title": _e(STR), "stars": _e(INT, enum=[1, 2, 3, 4, 5])},
    "get_exchange_rates": {"base": _e(STR), "symbols": _e(ARR, items=STR)},
    "filter_products": {
        "category": _e(STR),
        "max_price": _e(NUM, required=False, nullable=True),
        "in_stock": _e(BOOL, required=False),
        "sort": _e(STR, required=False, enum=["price", "rating", "newest"]),
    },
    "log_expense": {"amount": _e(), "category": _e(STR), "note": _e(STR, required=False)},
    "get_order": {"order_id": _e(STR)},
    "read_file": {"path": _e(STR), "encoding": _e(STR, required=False)},
    "play_music": {
        "query": _e(STR),
        "shuffle": _e(BOOL, required=False),
        "volume": _e(INT, required=False),
    },
    "split_bill": {"total": _e(NUM), "people": _e(INT), "tip_percent": _e(NUM, required=False)},
    "tag_photo": {"photo_id": _e(STR), "tags": _e(ARR, items=STR)},
    "plot_point": {"point": _e(ARR), "label": _e(STR, required=False, nullable=True)},
    "find_flights": {
        "origin": _e(STR),
        "destination": _e(STR),
        "date": _e(STR),
        "passengers": _e(INT, required=False),
        "cabin": _e(STR, required=False, enum=["economy", "business", "first"]),
    },
    "update_profile": {
        "display_name": _e(STR, required=False, nullable=True),
        "bio": _e(STR, required=False, nullable=True),
        "public": _e(BOOL, required=False, nullable=True),
    },
    "calculate_bmi": {"weight_kg": _e(NUM), "height_m": _e(NUM)},
    "get_news": {
        "topic": _e(STR),
        "language": _e(STR, required=False, enum=["en", "zh"]),
        "count": _e(INT, required=False),
    },
    "set_reminder": {"message": _e(STR), "minutes": _e(INT), "urgent": _e(BOOL, required=False)},
    "query_database": {
        "table": _e(STR),
        "columns": _e(ARR, items=STR),
        "limit": _e(INT, required=False, nullable=True),
    },
    "nearby_places": {
        "latitude": _e(NUM),
        "longitude": _e(NUM),
        "radius_m": _e(INT, required=False),
        "kinds": _e(ARR, required=False, nullable=True, items=STR),
    },
    "compare_numbers": {"a": _e(union=[INT, NUM]), "b": _e(union=[INT, NUM])},
    "toggle_light": {"room": _e(STR), "on": _e(BOOL)},
    "summarize": {
        "text": _e(STR),
        "max_sentences": _e(INT, required=False),
        "style": _e(STR, required=False, enum=["bullet", "prose"]),
    },
    "record_scores": {"scores": _e(OBJ)},
    "assign_task": {
        "task": _e(STR),
        "assignee": _e(union=[INT, STR], nullable=True),
        "due": _e(STR, required=False, nullable=True),
    },
    "weather_alerts": {
        "region": _e(STR),
        "severity": _e(STR, required=False, nullable=True, enum=["minor", "severe"]),
    },
    "reserve_seats": {"count": _e(INT), "section": _e(STR, required=False)},
    "set_volume": {"mute": _e(BOOL, required=False), "level": _e(INT, required=False)},
    "rate_limit": {"requests": _e(INT, required=False), "window_s": _e(NUM, required=False)},
    "update_preferences": {
        "user_id": _e(STR),
        "preferences": _e(OBJ, fields={"language": False, "units": False, "newsletter": False}),
    },
    "book_room": {
        "room": _e(OBJ, fields={"name": True, "floor": False, "capacity": False}),
        "hours": _e(INT, required=False),
    },
    "convert_length": {"value": _e(NUM), "unit": _e(STR, required=False, enum=["m", "ft"])},
    "lookup_city": {"name": _e(STR), "country": _e(STR, required=False, nullable=True)},
    "search_orders": {
        "filters": _e(OBJ, fields={"status": True, "since": False}),
        "page": _e(INT, required=False),
    },
}

assert [f.__name__ for f in CORPUS] == list(EXPECTED), "every corpus function needs expectations"
