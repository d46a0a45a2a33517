// tf_print.h: a small printf over semihosting, no allocator.
#include "tf_print.h"

#include "tf_host.h"

// The output: a window buffer[0, size) of the text, or a console flushed when full.
typedef struct {
  char* buf;
  uint32_t size;   // capacity of buf
  uint32_t used;   // characters in buf (console) / written so far (string)
  uint32_t total;  // length of the whole text
  int console;
} sink;

static void flush(sink* s) {
  if (s->console && s->used > 0) {
    (void)tf_host_write_console(1, s->buf, s->used);
    s->used = 0;
  }
}

static void put(sink* s, char c) {
  ++s->total;
  if (s->console) {
    if (s->used == s->size) flush(s);
    s->buf[s->used++] = c;
  } else if (s->used + 1 < s->size) {
    s->buf[s->used++] = c;
  }
}

static void put_n(sink* s, char c, int n) {
  while (n-- > 0) put(s, c);
}

// The digits of v in `base`, least significant first, into d; returns their count.
static int digits(uint64_t v, unsigned base, int upper, char d[24]) {
  const char* set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  int n = 0;
  do {
    d[n++] = set[v % base];
    v /= base;
  } while (v != 0);
  return n;
}

static int format(sink* s, const char* fmt, va_list ap) {
  for (const char* p = fmt; *p; ++p) {
    if (*p != '%') {
      put(s, *p);
      continue;
    }
    const char* start = p++;
    int left = 0, zero = 0, width = 0, precision = -1, longs = 0;
    for (;; ++p) {
      if (*p == '-') {
        left = 1;
      } else if (*p == '0') {
        zero = 1;
      } else {
        break;
      }
    }
    if (*p == '*') {
      width = va_arg(ap, int);
      if (width < 0) {
        left = 1;
        width = -width;
      }
      ++p;
    } else {
      while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
    }
    if (*p == '.') {
      ++p;
      precision = 0;
      if (*p == '*') {
        precision = va_arg(ap, int);
        ++p;
      } else {
        while (*p >= '0' && *p <= '9') precision = precision * 10 + (*p++ - '0');
      }
    }
    while (*p == 'h' || *p == 'l' || *p == 'z') {  // size_t is as wide as long
      if (*p != 'h') ++longs;
      ++p;
    }
    char d[24];
    int n = 0, negative = 0;
    const char* text = 0;
    switch (*p) {
      case 'd':
      case 'i': {
        const int64_t v = longs >= 2   ? va_arg(ap, long long)
                          : longs == 1 ? (int64_t)va_arg(ap, long)
                                       : (int64_t)va_arg(ap, int);
        negative = v < 0;
        n = digits(negative ? 0 - (uint64_t)v : (uint64_t)v, 10, 0, d);
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'p': {
        uint64_t v;
        if (*p == 'p') {
          v = (uintptr_t)va_arg(ap, void*);
        } else {
          v = longs >= 2   ? va_arg(ap, unsigned long long)
              : longs == 1 ? (uint64_t)va_arg(ap, unsigned long)
                           : (uint64_t)va_arg(ap, unsigned);
        }
        n = digits(v, *p == 'u' ? 10 : 16, *p == 'X', d);
        break;
      }
      case 'c':
        d[0] = (char)va_arg(ap, int);
        n = 1;
        break;
      case 's':
        text = va_arg(ap, const char*);
        if (!text) text = "(null)";
        break;
      case '%':
        put(s, '%');
        continue;
      default:  // unknown: print the conversion as written
        for (const char* q = start; q <= p && *q; ++q) put(s, *q);
        if (!*p) return (int)s->total;
        continue;
    }
    if (text) {
      int len = 0;
      while (text[len] && (precision < 0 || len < precision)) ++len;
      if (!left) put_n(s, ' ', width - len);
      for (int i = 0; i < len; ++i) put(s, text[i]);
      if (left) put_n(s, ' ', width - len);
      continue;
    }
    const int body = n + negative;
    if (left) {
      if (negative) put(s, '-');
      while (n > 0) put(s, d[--n]);
      put_n(s, ' ', width - body);
    } else if (zero) {
      if (negative) put(s, '-');
      put_n(s, '0', width - body);
      while (n > 0) put(s, d[--n]);
    } else {
      put_n(s, ' ', width - body);
      if (negative) put(s, '-');
      while (n > 0) put(s, d[--n]);
    }
  }
  return (int)s->total;
}

int tf_vsnprintf(char* buf, uint32_t size, const char* fmt, va_list ap) {
  sink s = {buf, size, 0, 0, 0};
  const int total = format(&s, fmt, ap);
  if (size > 0) buf[s.used] = '\0';
  return total;
}

int tf_snprintf(char* buf, uint32_t size, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int total = tf_vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return total;
}

int tf_printf(const char* fmt, ...) {
  char buf[256];
  sink s = {buf, sizeof buf, 0, 0, 1};
  va_list ap;
  va_start(ap, fmt);
  const int total = format(&s, fmt, ap);
  va_end(ap);
  flush(&s);
  return total;
}
