/**
 * Wall-clock time in an IANA time zone, with only `Intl` (which Workers
 * ship): the parts of an instant in a zone, the zone's offset then, and the
 * instant a wall-clock time in a zone names (DST gaps move forward, like
 * most calendars do).
 */
export type WallTime = { year: number; month: number; day: number; hour: number; minute: number; second: number; millisecond: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The formatter for a zone; throws RangeError for a zone that does not exist. */
function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The zone's name as given when there is such a zone (ICU may know it by an older alias), else undefined. */
export function checkTimeZone(timeZone: string): string | undefined {
  try {
    formatter(timeZone);
    return timeZone;
  } catch {
    return undefined;
  }
}

export function wallTimeOf(instant: number, timeZone: string): WallTime & { weekday: string } {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    millisecond: new Date(instant).getUTCMilliseconds(),
    weekday: parts.weekday ?? "",
  };
}

/** Minutes the zone is ahead of UTC at `instant`. */
export function offsetMinutes(instant: number, timeZone: string): number {
  const wall = wallTimeOf(instant, timeZone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond);
  return Math.round((asUtc - instant) / 60_000);
}

/** The instant a wall-clock time in `timeZone` names (month and day may overflow: Date.UTC carries them). */
export function instantOf(wall: WallTime, timeZone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond);
  let instant = asUtc - offsetMinutes(asUtc, timeZone) * 60_000;
  instant = asUtc - offsetMinutes(instant, timeZone) * 60_000;
  return instant;
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, "0")}:${String(absolute % 60).padStart(2, "0")}`;
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** How an instant reads in a zone: ISO with its offset, the local date and time, the weekday. */
export function describeInstant(instant: number, timeZone: string) {
  const wall = wallTimeOf(instant, timeZone);
  const offset = formatOffset(offsetMinutes(instant, timeZone));
  const date = `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
  const time = `${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
  return { iso: new Date(instant).toISOString(), timestamp: instant, timeZone, local: `${date}T${time}${offset}`, date, time, offset, weekday: wall.weekday };
}

const hasOffset = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const wallPattern = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;

/** An ISO date or date-time; one without an offset is wall-clock time in `timeZone`. Undefined if unreadable. */
export function parseInstant(text: string, timeZone: string): number | undefined {
  const trimmed = text.trim();
  if (hasOffset.test(trimmed)) {
    const instant = Date.parse(trimmed);
    return Number.isNaN(instant) ? undefined : instant;
  }
  const match = wallPattern.exec(trimmed);
  if (!match) return undefined;
  const [, year, month, day, hour = "0", minute = "0", second = "0", millisecond = "0"] = match;
  const wall = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
    millisecond: Number(millisecond.padEnd(3, "0")),
  };
  if (wall.month < 1 || wall.month > 12 || wall.day < 1 || wall.day > 31 || wall.hour > 23 || wall.minute > 59 || wall.second > 59) return undefined;
  return instantOf(wall, timeZone);
}
