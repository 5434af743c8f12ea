#!/usr/bin/python3
"""BloggyAppy: the blog of the classic Cassandra 0.6 data-model article, on
thriftd, with the thriftd Python client.

Keyspace BloggyAppy (see storage-conf-bloggyappy.xml):
  Authors      one row per author, keyed by full name
  BlogEntries  one row per post, keyed by slug; tags in a comma-separated column
  TaggedPosts  one row per tag, plus __notag__ for every post; column names
               are TimeUUIDs of the publication time, values are post slugs
  Comments     super column family: one row per post, one super column per
               comment, named by the TimeUUID of the comment's time

The example writes authors, posts, tags and comments, lists the 10 latest
posts of a tag with a reversed slice, shows a post with its author and
comments, then checks that what it read back is what it wrote; it exits
with status 1 if not. Run it against a thriftd serving that configuration:

    python3 bloggyappy.py [--server HOST:PORT] [--framed]
"""

import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

import thriftd  # noqa: E402

KEYSPACE = 'BloggyAppy'
NOTAG = '__notag__'
UTC = datetime.timezone.utc

AUTHORS = {
    'Arin Sarkissian': {'email': 'arin@example.com', 'bio': 'Wrote the data-model article.'},
    'Grace Hopper': {'email': 'grace@example.com', 'bio': 'Compilers, COBOL, nanoseconds.'},
}

COMMENTS = [
    # (post number, minutes after publication, commenter, text)
    (12, 5, 'Arin Sarkissian', 'Super columns make this easy.'),
    (12, 30, 'Grace Hopper', 'A nanosecond is about a foot of wire.'),
    (12, 90, 'Ada Lovelace', 'Looking forward to the next one.'),
    (11, 10, 'Grace Hopper', 'Nice write-up.'),
    (3, 60, 'Arin Sarkissian', 'TimeUUIDs sort by time, not by bytes.'),
]


def make_posts():
    """Twelve posts, one a day from 2010-03-01, alternating authors."""
    posts = []
    for n in range(1, 13):
        tags = ['cassandra'] if n != 7 else []
        if n % 3 == 0:
            tags.append('thrift')
        if n % 4 == 0:
            tags.append('python')
        posts.append({
            'n': n,
            'slug': 'post-%02d' % n,
            'title': 'Notes on the data model, part %d' % n,
            'body': 'Part %d of a series about rows, columns and super columns.' % n,
            'author': 'Arin Sarkissian' if n % 2 else 'Grace Hopper',
            'tags': tags,
            'published': datetime.datetime(2010, 3, n, 9, 0, tzinfo=UTC),
        })
    return posts


class Blog(object):
    def __init__(self, client):
        self.authors = thriftd.ColumnFamily(client, KEYSPACE, 'Authors')
        self.entries = thriftd.ColumnFamily(client, KEYSPACE, 'BlogEntries')
        self.tagged = thriftd.ColumnFamily(client, KEYSPACE, 'TaggedPosts')
        self.comments = thriftd.ColumnFamily(client, KEYSPACE, 'Comments')
        self.client = client

    def clear(self, posts):
        """Deletes the rows this example writes, so that it can run again."""
        tags = {NOTAG} | {t for p in posts for t in p['tags']}
        with thriftd.Mutator(self.client) as batch:
            for name in AUTHORS:
                batch.remove(self.authors, name)
            for p in posts:
                batch.remove(self.entries, p['slug'])
                batch.remove(self.comments, p['slug'])
            for tag in tags:
                batch.remove(self.tagged, tag)

    def add_author(self, name, fields):
        self.authors.insert(name, fields)

    def publish(self, post):
        """The post and its tag index entries go in one batch_mutate."""
        when = thriftd.convert_time_to_uuid(post['published'], randomize=True)
        with thriftd.Mutator(self.client) as batch:
            batch.insert(self.entries, post['slug'], {
                'title': post['title'],
                'body': post['body'],
                'author': post['author'],
                'tags': ','.join(post['tags']),
                'pubDate': post['published'].isoformat(),
            })
            for tag in post['tags'] + [NOTAG]:
                batch.insert(self.tagged, tag, {when: post['slug']})

    def comment(self, slug, when, commenter, text):
        self.comments.insert(slug, {
            thriftd.convert_time_to_uuid(when, randomize=True): {
                'commenter': commenter,
                'body': text,
            }})

    def latest(self, tag, count=10):
        """The count latest posts of a tag: a reversed slice of its
        TaggedPosts row, then the posts themselves with one multiget."""
        try:
            index = self.tagged.get(tag, column_reversed=True, column_count=count)
        except thriftd.NotFoundException:
            return []
        slugs = [slug.decode() for slug in index.values()]
        entries = self.entries.multiget(slugs)
        return [(slug, entries[slug]) for slug in slugs if slug in entries]

    def show(self, slug):
        """A post, its author's row and its comments (oldest first)."""
        post = self.entries.get(slug)
        author = self.authors.get(post[b'author'].decode())
        try:
            comments = self.comments.get(slug, column_count=1000)
        except thriftd.NotFoundException:
            comments = {}
        return post, author, comments


def text(row, name):
    return row[name.encode()].decode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--server', default='localhost:9160', help='thriftd address, HOST:PORT')
    parser.add_argument('--framed', action='store_true', help='use the framed transport')
    args = parser.parse_args()

    posts = make_posts()
    by_number = {p['n']: p for p in posts}
    failures = []

    def check(what, got, expected):
        if got != expected:
            failures.append('%s: expected %r, got %r' % (what, expected, got))

    with thriftd.connect(args.server, framed=args.framed, timeout=30) as client:
        blog = Blog(client)
        blog.clear(posts)
        for name, fields in AUTHORS.items():
            blog.add_author(name, fields)
        for post in posts:
            blog.publish(post)
        for n, minutes, commenter, body in COMMENTS:
            when = by_number[n]['published'] + datetime.timedelta(minutes=minutes)
            blog.comment(by_number[n]['slug'], when, commenter, body)
        print('BloggyAppy on %s: %d authors, %d posts, %d comments written.'
              % (args.server, len(AUTHORS), len(posts), len(COMMENTS)))

        for tag in ('cassandra', 'python'):
            latest = blog.latest(tag)
            print('\n%d latest posts tagged "%s":' % (len(latest), tag))
            for slug, entry in latest:
                print('  %s  %-40s by %s' % (text(entry, 'pubDate')[:10], text(entry, 'title'),
                                             text(entry, 'author')))
            expected = [p['slug'] for p in reversed(posts) if tag in p['tags']][:10]
            check('latest posts tagged %s' % tag, [slug for slug, _ in latest], expected)
        all_posts = blog.latest(NOTAG, count=100)
        check('all posts, newest first', [s for s, _ in all_posts], [p['slug'] for p in reversed(posts)])

        slug = by_number[12]['slug']
        post, author, comments = blog.show(slug)
        print('\n%s' % text(post, 'title'))
        print('  by %s <%s> (%s)' % (text(post, 'author'), text(author, 'email'), text(author, 'bio')))
        print('  published %s, tagged %s' % (text(post, 'pubDate'), text(post, 'tags')))
        print('  %s' % text(post, 'body'))
        print('  %d comments:' % len(comments))
        for name, fields in comments.items():
            when = datetime.datetime.fromtimestamp(thriftd.convert_uuid_to_time(name), UTC)
            print('    %s  %s: %s' % (when.strftime('%Y-%m-%d %H:%M'), text(fields, 'commenter'),
                                      text(fields, 'body')))

        expected_post = by_number[12]
        check('post title', text(post, 'title'), expected_post['title'])
        check('post author', text(post, 'author'), expected_post['author'])
        check('post tags', text(post, 'tags'), ','.join(expected_post['tags']))
        check('author email', text(author, 'email'), AUTHORS[expected_post['author']]['email'])
        check('comments, oldest first',
              [(text(f, 'commenter'), text(f, 'body')) for f in comments.values()],
              [(c, b) for n, _, c, b in COMMENTS if n == 12])
        check('comment times', [round(thriftd.convert_uuid_to_time(u)) for u in comments],
              [round((expected_post['published'] + datetime.timedelta(minutes=m)).timestamp())
               for n, m, _, _ in COMMENTS if n == 12])
        check('comment count of post 3', blog.comments.get_count(by_number[3]['slug']), 1)
        check('posts without comments', blog.comments.get_count(by_number[1]['slug']), 0)

    if failures:
        for f in failures:
            print('CHECK FAILED: ' + f, file=sys.stderr)
        return 1
    print('\nall checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
