"""The small tea shop that lesson 09's assistant serves: its data, what can be done with it, and
the tools a model may call on it.

A :class:`Shop` holds products, orders, notes, reviews and the weather in the cities it delivers
to, in English and Chinese. Its methods are the operations; :func:`shop_tools` wraps them as
plain functions with type hints and docstrings, ready to be registered (reflection makes their
schemas). Every change the shop makes is appended to ``Shop.actions``, so whoever built the shop
can tell afterwards what the tools really did.

The policies that decide which tools a request gets read ``policies.py``.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable
from typing import Any, Literal

RENDEZVOUS_SECONDS = 5.0
# What delivery_weather says when the calls it waited for never came (see ``Shop``).
RENDEZVOUS_MISSED = "the calls of one turn ran one after another, not at the same time"

# --- the demo shop -----------------------------------------------------------------------------

DEMO_DATA: dict[str, Any] = {
    "products": [
        {"sku": "T01", "name": "Longjing green tea", "name_zh": "龙井绿茶", "price": 68,
         "stock": 12},
        {"sku": "T02", "name": "Oolong tea", "name_zh": "乌龙茶", "price": 45, "stock": 0},
        {"sku": "T03", "name": "Jasmine tea", "name_zh": "茉莉花茶", "price": 30, "stock": 40},
        {"sku": "P01", "name": "Celadon teapot", "name_zh": "青瓷茶壶", "price": 120,
         "stock": 3},
    ],
    "orders": {
        "A1001": {"status": "shipped", "city": "北京", "items": ["T01"], "total": 68},
        "A1002": {"status": "processing", "city": "上海", "items": ["T03", "P01"], "total": 150},
        "A1003": {"status": "delivered", "city": "Paris", "items": ["T02"], "total": 45},
    },
    "notes": {"A1001": ["Customer asked for gift wrapping."], "A1002": ["客户要求周六送货。"]},
    "reviews": {
        "T01": ["清香，回甘很好。", "Fresh and bright, worth the price."],
        "T03": ["Lovely scent, a little sweet."],
    },
    "weather": {
        "北京": {"today": "晴 sunny, 21°C", "tomorrow": "小雨 light rain, 17°C"},
        "上海": {"today": "多云 cloudy, 24°C", "tomorrow": "雷阵雨 thunderstorms, 26°C"},
        "Paris": {"today": "cloudy, 15°C", "tomorrow": "sunny, 18°C"},
    },
}  # fmt: skip


class ShopError(LookupError):
    """Something the shop does not have (an unknown order, product or city)."""


class Shop:
    """The shop's data and its operations; every change is recorded in ``actions``.

    ``rendezvous`` > 1 makes ``delivery_weather`` wait until that many calls are inside it at
    once (for at most ``RENDEZVOUS_SECONDS``): a way to tell calls run together from calls run
    one after another without measuring any time.
    """

    def __init__(self, data: dict[str, Any], *, rendezvous: int = 0) -> None:
        data = copy.deepcopy(data)
        self.products: list[dict[str, Any]] = data["products"]
        self.orders: dict[str, dict[str, Any]] = data["orders"]
        self.notes: dict[str, list[str]] = data.get("notes", {})
        self.reviews: dict[str, list[str]] = data.get("reviews", {})
        self.weather: dict[str, dict[str, str]] = data.get("weather", {})
        self.actions: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._barrier = (
            threading.Barrier(rendezvous, timeout=RENDEZVOUS_SECONDS) if rendezvous > 1 else None
        )

    def snapshot(self) -> dict[str, Any]:
        """The orders, notes and actions as plain JSON: what a check reads after a run."""
        with self._lock:
            return copy.deepcopy(
                {"orders": self.orders, "notes": self.notes, "actions": self.actions}
            )

    # --- reading ---------------------------------------------------------------------------

    def search_products(self, query: str, limit: int = 5) -> list[dict[str, Any]]:
        words = [w for w in re.split(r"\s+", query.strip().lower()) if w]
        found = [p for p in self.products if _matches(p, words)]
        return [dict(p, currency="CNY") for p in found[: max(limit, 0)]]

    def product_reviews(self, product: str) -> dict[str, Any]:
        match = self._product(product)
        return {
            "sku": match["sku"],
            "name": match["name"],
            "reviews": self.reviews.get(match["sku"], []),
        }

    def order_status(self, order_id: str) -> dict[str, Any]:
        order = self._order(order_id)
        return {"order_id": order_id.strip().upper(), **order}

    def read_notes(self, order_id: str) -> dict[str, Any]:
        key = self._order_key(order_id)
        return {"order_id": key, "notes": list(self.notes.get(key, []))}

    def delivery_weather(self, city: str, day: str = "today") -> dict[str, Any]:
        if self._barrier is not None:
            try:
                self._barrier.wait()
            except threading.BrokenBarrierError:
                raise RuntimeError(
                    "delivery_weather waited for the other calls of its turn, which never "
                    f"came: {RENDEZVOUS_MISSED}"
                ) from None
        forecast = self.weather.get(city.strip())
        if forecast is None:
            known = ", ".join(self.weather)
            raise ShopError(f"we do not deliver to {city!r}; cities we deliver to: {known}")
        return {"city": city.strip(), "day": day, "forecast": forecast[day]}

    # --- changing --------------------------------------------------------------------------

    def cancel_order(self, order_id: str, reason: str = "") -> dict[str, Any]:
        key = self._order_key(order_id)
        with self._lock:
            order = self.orders[key]
            if order["status"] in ("shipped", "delivered", "cancelled"):
                raise ShopError(f"order {key} is {order['status']} and cannot be cancelled")
            order["status"] = "cancelled"
            self.actions.append({"action": "cancel_order", "order_id": key, "reason": reason})
        return {"order_id": key, "status": "cancelled"}

    def add_note(self, order_id: str, text: str) -> dict[str, Any]:
        key = self._order_key(order_id)
        with self._lock:
            self.notes.setdefault(key, []).append(text)
            self.actions.append({"action": "add_note", "order_id": key, "text": text})
        return {"order_id": key, "notes": len(self.notes[key])}

    # --- lookups ---------------------------------------------------------------------------

    def _order_key(self, order_id: str) -> str:
        key = order_id.strip().upper()
        if key not in self.orders:
            raise ShopError(f"there is no order {order_id!r}; order numbers look like A1001")
        return key

    def _order(self, order_id: str) -> dict[str, Any]:
        return copy.deepcopy(self.orders[self._order_key(order_id)])

    def _product(self, product: str) -> dict[str, Any]:
        words = [w for w in re.split(r"\s+", product.strip().lower()) if w]
        for candidate in self.products:
            if candidate["sku"].lower() == product.strip().lower() or _matches(candidate, words):
                return candidate
        raise ShopError(f"there is no product {product!r}; search_products lists what we sell")


def _matches(product: dict[str, Any], words: list[str]) -> bool:
    """Every word of the query appears in the English or the Chinese name."""
    names = f"{product['name']} {product['name_zh']}".lower()
    return bool(words) and all(word in names for word in words)


def demo_shop() -> Shop:
    """A fresh shop with the demo data (each call a new one: its changes stay its own)."""
    return Shop(DEMO_DATA)


# --- the tools ---------------------------------------------------------------------------------


def shop_tools(shop: Shop) -> list[Callable[..., Any]]:
    """The shop's operations as tool functions bound to ``shop``: hints and docstrings included,
    so a registry (or ``function_to_tool``) reflects them into schemas. ``calculate`` is not
    here: the assistant brings its own, safe one."""

    def search_products(query: str, limit: int = 5) -> list[dict]:
        """Look up the teas and teapots we sell by name: how much each costs, stock and SKU
        (查茶叶和茶壶的价格：多少钱，库存).

        Args:
            query: Part of a product name, e.g. "oolong" or "龙井".
            limit: The most products to return.
        """
        return shop.search_products(query, limit)

    def product_reviews(product: str) -> dict:
        """Reviews: what customers wrote about one of our teas or teapots (评价).

        Args:
            product: A search term: the product's name or part of it, e.g. "jasmine" or "茉莉".
        """
        return shop.product_reviews(product)

    def order_status(order_id: str) -> dict:
        """Where an order is: its status, delivery city and items.

        Args:
            order_id: The order number, e.g. A1001.
        """
        return shop.order_status(order_id)

    def cancel_order(order_id: str, reason: str = "") -> dict:
        """Cancel an order that has not shipped yet.

        Args:
            order_id: The order number, e.g. A1001.
            reason: Why it is cancelled, for the records.
        """
        return shop.cancel_order(order_id, reason)

    def add_note(order_id: str, text: str) -> dict:
        """Write a new internal note on an order (staff only).

        Args:
            order_id: The order number, e.g. A1001.
            text: The note, e.g. "周六送货".
        """
        return shop.add_note(order_id, text)

    def read_notes(order_id: str) -> dict:
        """Show what the internal notes of an order say (staff only).

        Args:
            order_id: The order number, e.g. A1001.
        """
        return shop.read_notes(order_id)

    def delivery_weather(city: str, day: Literal["today", "tomorrow"] = "today") -> dict:
        """The weather for a delivery to a city, today or tomorrow.

        Args:
            city: The delivery city, e.g. 北京 or Paris.
            day: Which day.
        """
        return shop.delivery_weather(city, day)

    return [
        search_products,
        product_reviews,
        order_status,
        cancel_order,
        add_note,
        read_notes,
        delivery_weather,
    ]
