-- sample.sql: the sample database of the default deployment (make builds build/conf/sample.db).
-- A small bookshop: authors, books, customers, orders and their lines, two views, and enough
-- rows to try joins, aggregates, placeholders and the row limit.
PRAGMA foreign_keys = ON;
PRAGMA user_version = 1;

BEGIN;

CREATE TABLE authors (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    country TEXT NOT NULL,
    born    INTEGER
);

CREATE TABLE books (
    id        INTEGER PRIMARY KEY,
    title     TEXT NOT NULL,
    author_id INTEGER NOT NULL REFERENCES authors (id),
    genre     TEXT NOT NULL CHECK (genre IN ('fiction', 'science', 'history', 'poetry', 'computing')),
    year      INTEGER,
    price     REAL NOT NULL CHECK (price >= 0),
    stock     INTEGER NOT NULL DEFAULT 0,
    isbn      TEXT UNIQUE
);
CREATE INDEX books_author ON books (author_id);
CREATE INDEX books_genre_year ON books (genre, year);

CREATE TABLE customers (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    email   TEXT NOT NULL UNIQUE,
    city    TEXT,
    joined  TEXT NOT NULL DEFAULT (date('now'))
);

CREATE TABLE orders (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    placed      TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'paid', 'shipped', 'cancelled'))
);
CREATE INDEX orders_customer ON orders (customer_id);

CREATE TABLE order_lines (
    order_id   INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    book_id    INTEGER NOT NULL REFERENCES books (id),
    quantity   INTEGER NOT NULL CHECK (quantity > 0),
    unit_price REAL NOT NULL,
    PRIMARY KEY (order_id, book_id)
) WITHOUT ROWID;

-- A small binary column, to show how blobs come back (base64 in JSON, hex in the table).
CREATE TABLE covers (
    book_id INTEGER PRIMARY KEY REFERENCES books (id),
    format  TEXT NOT NULL,
    image   BLOB NOT NULL
);

CREATE VIEW order_totals AS
    SELECT o.id AS order_id, c.name AS customer, o.placed, o.status,
           sum(l.quantity) AS items, round(sum(l.quantity * l.unit_price), 2) AS total
    FROM orders AS o
    JOIN customers AS c ON c.id = o.customer_id
    JOIN order_lines AS l ON l.order_id = o.id
    GROUP BY o.id;

CREATE VIEW book_sales AS
    SELECT b.id AS book_id, b.title, a.name AS author,
           coalesce(sum(l.quantity) FILTER (WHERE o.status <> 'cancelled'), 0) AS sold
    FROM books AS b
    JOIN authors AS a ON a.id = b.author_id
    LEFT JOIN order_lines AS l ON l.book_id = b.id
    LEFT JOIN orders AS o ON o.id = l.order_id
    GROUP BY b.id;

INSERT INTO authors (id, name, country, born) VALUES
    (1, 'Ursula K. Le Guin', 'United States', 1929),
    (2, 'Italo Calvino', 'Italy', 1923),
    (3, 'Carl Sagan', 'United States', 1934),
    (4, 'Mary Beard', 'United Kingdom', 1955),
    (5, 'Wisława Szymborska', 'Poland', 1923),
    (6, 'Donald E. Knuth', 'United States', 1938),
    (7, 'Chimamanda Ngozi Adichie', 'Nigeria', 1977),
    (8, 'Haruki Murakami', 'Japan', 1949),
    (9, 'Brian W. Kernighan', 'Canada', 1942),
    (10, 'Yuval Noah Harari', 'Israel', 1976);

INSERT INTO books (id, title, author_id, genre, year, price, stock, isbn) VALUES
    (1, 'The Left Hand of Darkness', 1, 'fiction', 1969, 9.99, 12, '978-0441478125'),
    (2, 'The Dispossessed', 1, 'fiction', 1974, 10.50, 7, '978-0061054884'),
    (3, 'A Wizard of Earthsea', 1, 'fiction', 1968, 8.99, 15, '978-0547722023'),
    (4, 'Invisible Cities', 2, 'fiction', 1972, 11.00, 4, '978-0156453806'),
    (5, 'If on a Winter''s Night a Traveler', 2, 'fiction', 1979, 12.50, 3, '978-0156439619'),
    (6, 'Cosmos', 3, 'science', 1980, 14.00, 9, '978-0345539434'),
    (7, 'Pale Blue Dot', 3, 'science', 1994, 13.25, 5, '978-0345376596'),
    (8, 'SPQR', 4, 'history', 2015, 17.99, 6, '978-1631492228'),
    (9, 'Women & Power', 4, 'history', 2017, 9.50, 8, '978-1631494758'),
    (10, 'View with a Grain of Sand', 5, 'poetry', 1995, 10.00, 2, '978-0156002165'),
    (11, 'The Art of Computer Programming, Vol. 1', 6, 'computing', 1968, 79.99, 1, '978-0201896831'),
    (12, 'Literate Programming', 6, 'computing', 1992, 29.95, 0, '978-0937073803'),
    (13, 'Americanah', 7, 'fiction', 2013, 12.99, 10, '978-0307455925'),
    (14, 'Half of a Yellow Sun', 7, 'fiction', 2006, 11.99, 6, '978-1400095209'),
    (15, 'Kafka on the Shore', 8, 'fiction', 2002, 13.50, 5, '978-1400079278'),
    (16, 'Norwegian Wood', 8, 'fiction', 1987, 12.00, 11, '978-0375704024'),
    (17, 'The C Programming Language', 9, 'computing', 1978, 45.00, 4, '978-0131103627'),
    (18, 'The Practice of Programming', 9, 'computing', 1999, 39.99, 3, '978-0201615869'),
    (19, 'Sapiens', 10, 'history', 2011, 16.99, 14, '978-0062316097'),
    (20, 'Here and There', 5, 'poetry', NULL, 8.00, 0, NULL);

INSERT INTO customers (id, name, email, city, joined) VALUES
    (1, 'Ada Okafor', 'ada@example.com', 'Lagos', '2023-01-14'),
    (2, 'Bruno Rossi', 'bruno@example.com', 'Turin', '2023-02-02'),
    (3, 'Chen Wei', 'chen.wei@example.com', 'Shanghai', '2023-03-21'),
    (4, 'Dana Kowalska', 'dana.k@example.com', 'Kraków', '2023-05-09'),
    (5, 'Eli Cohen', 'eli@example.com', 'Haifa', '2023-06-30'),
    (6, 'Fatima Zahra', 'fatima@example.com', 'Rabat', '2023-08-11'),
    (7, 'Gus Johansson', 'gus@example.com', 'Uppsala', '2023-10-01'),
    (8, 'Hana Sato', 'hana@example.com', 'Osaka', '2024-01-05'),
    (9, 'Ivan Petrov', 'ivan@example.com', NULL, '2024-02-17'),
    (10, 'Julia Martins', 'julia@example.com', 'Porto', '2024-03-03'),
    (11, 'Kofi Mensah', 'kofi@example.com', 'Accra', '2024-04-22'),
    (12, 'Lena Fischer', 'lena@example.com', 'Leipzig', '2024-05-30');

INSERT INTO orders (id, customer_id, placed, status) VALUES
    (1, 1, '2024-01-20', 'shipped'),
    (2, 2, '2024-02-03', 'shipped'),
    (3, 3, '2024-02-14', 'shipped'),
    (4, 1, '2024-03-01', 'paid'),
    (5, 4, '2024-03-18', 'shipped'),
    (6, 5, '2024-04-02', 'cancelled'),
    (7, 6, '2024-04-25', 'shipped'),
    (8, 8, '2024-05-10', 'paid'),
    (9, 7, '2024-05-28', 'shipped'),
    (10, 10, '2024-06-12', 'new'),
    (11, 11, '2024-06-19', 'paid'),
    (12, 3, '2024-07-04', 'new'),
    (13, 12, '2024-07-15', 'shipped'),
    (14, 2, '2024-08-01', 'new');

INSERT INTO order_lines (order_id, book_id, quantity, unit_price) VALUES
    (1, 13, 1, 12.99), (1, 14, 1, 11.99),
    (2, 4, 2, 11.00), (2, 5, 1, 12.50),
    (3, 15, 1, 13.50), (3, 16, 1, 12.00), (3, 19, 1, 16.99),
    (4, 17, 1, 45.00),
    (5, 10, 3, 10.00), (5, 20, 1, 8.00),
    (6, 11, 1, 79.99),
    (7, 6, 1, 14.00), (7, 7, 1, 13.25),
    (8, 16, 2, 12.00),
    (9, 1, 1, 9.99), (9, 2, 1, 10.50), (9, 3, 1, 8.99),
    (10, 8, 1, 17.99),
    (11, 18, 1, 39.99), (11, 17, 1, 45.00),
    (12, 19, 2, 16.99),
    (13, 9, 1, 9.50), (13, 8, 1, 17.99),
    (14, 12, 1, 29.95);

-- 1x1 pixel images: a GIF and a PNG.
INSERT INTO covers (book_id, format, image) VALUES
    (6, 'image/gif', x'47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b'),
    (19, 'image/png', x'89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a0a20000000049454e44ae426082');

COMMIT;
