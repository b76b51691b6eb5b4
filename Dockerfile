FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_URL=sqlite:////data/dicebot.sqlite3 \
    DATA_DIR=/data \
    REQUIRE_TOKEN=true

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY fakediscord ./fakediscord
RUN pip install . \
    && useradd --create-home --uid 10001 dicebot \
    && mkdir /data && chown dicebot:dicebot /data

USER dicebot
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
