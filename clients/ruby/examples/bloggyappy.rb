#!/usr/bin/ruby
# BloggyAppy: the blog of the classic Cassandra 0.6 data-model article, on
# thriftd, with the Ruby client in clients/ruby.
#
# Keyspace BloggyAppy (see storage-conf-bloggyappy.xml):
#   Authors      one row per author, keyed by full name
#   BlogEntries  one row per post, keyed by slug; tags in a comma-separated column
#   TaggedPosts  one row per tag, plus __notag__ for every post; column names
#                are TimeUUIDs of the publication time, values are post slugs
#   Comments     super column family: one row per post, one super column per
#                comment, named by the TimeUUID of the comment's time
#
# The example writes authors, posts, tags and comments, lists the 10 latest
# posts of a tag with a reversed slice, shows a post with its author and
# comments, then checks that what it read back is what it wrote; it exits
# with status 1 if not. Run it against a thriftd serving that configuration:
#
#   ruby bloggyappy.rb [--server HOST:PORT] [--framed]

$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
require "cassandra"
require "optparse"
require "time"

NOTAG = "__notag__".freeze

AUTHORS = {
  "Arin Sarkissian" => { "email" => "arin@example.com", "bio" => "Wrote the data-model article." },
  "Grace Hopper" => { "email" => "grace@example.com", "bio" => "Compilers, COBOL, nanoseconds." },
}.freeze

# [post number, minutes after publication, commenter, text]
COMMENTS = [
  [12, 5, "Arin Sarkissian", "Super columns make this easy."],
  [12, 30, "Grace Hopper", "A nanosecond is about a foot of wire."],
  [12, 90, "Ada Lovelace", "Looking forward to the next one."],
  [11, 10, "Grace Hopper", "Nice write-up."],
  [3, 60, "Arin Sarkissian", "TimeUUIDs sort by time, not by bytes."],
].freeze

Post = Struct.new(:n, :slug, :title, :body, :author, :tags, :published)

# Twelve posts, one a day from 2010-03-01, alternating authors.
def make_posts
  (1..12).map do |n|
    tags = n == 7 ? [] : ["cassandra"]
    tags << "thrift" if (n % 3).zero?
    tags << "python" if (n % 4).zero?
    Post.new(n, format("post-%02d", n), "Notes on the data model, part #{n}",
             "Part #{n} of a series about rows, columns and super columns.",
             n.odd? ? "Arin Sarkissian" : "Grace Hopper", tags, Time.utc(2010, 3, n, 9, 0))
  end
end

class Blog
  def initialize(cassandra)
    @db = cassandra
  end

  # Deletes the rows this example writes, so that it can run again.
  def clear(posts)
    tags = posts.flat_map(&:tags).uniq + [NOTAG]
    @db.batch do
      AUTHORS.each_key { |name| @db.remove(:Authors, name) }
      posts.each do |p|
        @db.remove(:BlogEntries, p.slug)
        @db.remove(:Comments, p.slug)
      end
      tags.each { |tag| @db.remove(:TaggedPosts, tag) }
    end
  end

  def add_author(name, fields)
    @db.insert(:Authors, name, fields)
  end

  # The post and its tag index entries go in one batch_mutate.
  def publish(post)
    id = Cassandra::UUID.new(post.published)
    @db.batch do
      @db.insert(:BlogEntries, post.slug,
                 "title" => post.title, "body" => post.body, "author" => post.author,
                 "tags" => post.tags.join(","), "pubDate" => post.published.iso8601)
      (post.tags + [NOTAG]).each { |tag| @db.insert(:TaggedPosts, tag, id => post.slug) }
    end
  end

  def comment(slug, time, commenter, text)
    @db.insert(:Comments, slug, Cassandra::UUID.new(time) => { "commenter" => commenter, "body" => text })
  end

  # The count latest posts of a tag: a reversed slice of its TaggedPosts
  # row, then the posts themselves with one multi_get.
  def latest(tag, count = 10)
    slugs = @db.get(:TaggedPosts, tag, reversed: true, count: count).values
    entries = @db.multi_get(:BlogEntries, slugs)
    slugs.map { |slug| [slug, entries[slug]] }.reject { |_, entry| entry.empty? }
  end

  # A post, its author's row and its comments (oldest first).
  def show(slug)
    post = @db.get(:BlogEntries, slug)
    [post, @db.get(:Authors, post["author"]), @db.get(:Comments, slug, count: 1000)]
  end

  def comment_count(slug)
    @db.count_columns(:Comments, slug)
  end
end

server = "localhost:9160"
framed = false
OptionParser.new do |o|
  o.banner = "usage: ruby bloggyappy.rb [--server HOST:PORT] [--framed]"
  o.on("--server HOST:PORT", "thriftd address") { |s| server = s }
  o.on("--framed", "use the framed transport") { framed = true }
end.parse!

posts = make_posts
by_number = posts.to_h { |p| [p.n, p] }
failures = []
check = lambda do |what, got, expected|
  failures << "#{what}: expected #{expected.inspect}, got #{got.inspect}" unless got == expected
end

db = Cassandra.new("BloggyAppy", server, framed: framed, timeout: 30)
blog = Blog.new(db)
blog.clear(posts)
AUTHORS.each { |name, fields| blog.add_author(name, fields) }
posts.each { |post| blog.publish(post) }
COMMENTS.each do |n, minutes, commenter, text|
  blog.comment(by_number[n].slug, by_number[n].published + minutes * 60, commenter, text)
end
puts "BloggyAppy on #{server}: #{AUTHORS.size} authors, #{posts.size} posts, #{COMMENTS.size} comments written."

%w[cassandra python].each do |tag|
  latest = blog.latest(tag)
  puts "\n#{latest.size} latest posts tagged \"#{tag}\":"
  latest.each do |_, entry|
    puts format("  %s  %-40s by %s", entry["pubDate"][0, 10], entry["title"], entry["author"])
  end
  expected = posts.reverse.select { |p| p.tags.include?(tag) }.first(10).map(&:slug)
  check.call("latest posts tagged #{tag}", latest.map(&:first), expected)
end
check.call("all posts, newest first", blog.latest(NOTAG, 100).map(&:first), posts.reverse.map(&:slug))

expected_post = by_number[12]
post, author, comments = blog.show(expected_post.slug)
puts "\n#{post['title']}"
puts "  by #{post['author']} <#{author['email']}> (#{author['bio']})"
puts "  published #{post['pubDate']}, tagged #{post['tags']}"
puts "  #{post['body']}"
puts "  #{comments.size} comments:"
comments.each do |id, fields|
  puts "    #{id.to_time.utc.strftime('%Y-%m-%d %H:%M')}  #{fields['commenter']}: #{fields['body']}"
end

check.call("post title", post["title"], expected_post.title)
check.call("post author", post["author"], expected_post.author)
check.call("post tags", post["tags"], expected_post.tags.join(","))
check.call("author email", author["email"], AUTHORS[expected_post.author]["email"])
own = COMMENTS.select { |n, *| n == 12 }
check.call("comments, oldest first", comments.values.map { |f| [f["commenter"], f["body"]] }, own.map { |_, _, c, b| [c, b] })
check.call("comment times", comments.keys.map { |id| id.to_time.to_i },
           own.map { |_, m, _, _| (expected_post.published + m * 60).to_i })
check.call("comment count of post 3", blog.comment_count(by_number[3].slug), 1)
check.call("posts without comments", blog.comment_count(by_number[1].slug), 0)
db.disconnect!

unless failures.empty?
  failures.each { |f| warn "CHECK FAILED: #{f}" }
  exit 1
end
puts "\nall checks passed"
