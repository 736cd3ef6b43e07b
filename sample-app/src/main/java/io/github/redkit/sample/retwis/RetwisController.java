package io.github.redkit.sample.retwis;

import java.util.List;
import java.util.Map;

import io.github.redkit.sample.analytics.Analytics;
import io.github.redkit.sample.analytics.EventLog;
import io.github.redkit.sample.profile.AuthorProfiles;
import io.github.redkit.sample.profile.LastSeen;
import io.github.redkit.sample.profile.Profile;
import io.github.redkit.sample.profile.Profiles;
import io.github.redkit.sample.web.ApiException;
import io.github.redkit.sample.web.Validation;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The Retwis HTTP API. Every input is checked before anything is written.
 */
@RestController
class RetwisController {

	private static final String AUTH = "Authorization";

	private final Users users;

	private final Social social;

	private final Posts posts;

	private final Timelines timelines;

	private final Profiles profiles;

	private final LastSeen lastSeen;

	private final Analytics analytics;

	private final EventLog events;

	private final AuthorProfiles authors;

	RetwisController(Users users, Social social, Posts posts, Timelines timelines, Profiles profiles, LastSeen lastSeen,
			Analytics analytics, EventLog events, AuthorProfiles authors) {
		this.users = users;
		this.social = social;
		this.posts = posts;
		this.timelines = timelines;
		this.profiles = profiles;
		this.lastSeen = lastSeen;
		this.analytics = analytics;
		this.events = events;
		this.authors = authors;
	}

	@PostMapping("/api/register")
	@ResponseStatus(HttpStatus.CREATED)
	Users.Session register(@RequestBody(required = false) Credentials credentials) {
		Credentials checked = check(credentials);
		Users.Session session = this.users.register(checked.name(), checked.password());
		this.events.append(System.currentTimeMillis(), "signup:" + session.id() + ":" + session.name());
		return session;
	}

	@GetMapping("/api/names/{name}")
	Map<String, Object> name(@PathVariable String name) {
		Validation.name(name);
		return Map.of("name", name, "available", !this.users.isTaken(name));
	}

	@PostMapping("/api/login")
	Users.Session login(HttpServletRequest request, @RequestBody(required = false) Credentials credentials) {
		Credentials checked = check(credentials);
		return this.users.login(checked.name(), checked.password(), request.getRemoteAddr());
	}

	@PostMapping("/api/logout")
	Map<String, String> logout(@RequestHeader(value = AUTH, required = false) String auth) {
		this.users.logout(current(auth));
		return Map.of("status", "logged out");
	}

	@PostMapping("/api/posts")
	@ResponseStatus(HttpStatus.CREATED)
	Post post(HttpServletRequest request, @RequestHeader(value = AUTH, required = false) String auth,
			@RequestBody(required = false) NewPost post) {
		User user = current(auth);
		String text = Validation.required("text", (post != null) ? post.text() : null, 280);
		return this.posts.publish(user, request.getRemoteAddr(), text);
	}

	@PostMapping("/api/follow/{name}")
	Map<String, Object> follow(@RequestHeader(value = AUTH, required = false) String auth, @PathVariable String name) {
		User user = current(auth);
		this.social.follow(user, this.users.require(Validation.name(name)));
		return Map.of("following", name);
	}

	@DeleteMapping("/api/follow/{name}")
	Map<String, Object> unfollow(@RequestHeader(value = AUTH, required = false) String auth,
			@PathVariable String name) {
		User user = current(auth);
		this.social.unfollow(user, this.users.require(Validation.name(name)));
		return Map.of("unfollowed", name);
	}

	@GetMapping("/api/timeline")
	List<Post> home(@RequestHeader(value = AUTH, required = false) String auth,
			@RequestParam(defaultValue = "0") int page, @RequestParam(defaultValue = "10") int size) {
		User user = current(auth);
		return this.timelines.page(Keys.timeline(user.id()), checkPage(page, size), size);
	}

	@GetMapping("/api/timeline/global")
	List<Post> global(@RequestParam(defaultValue = "0") int page, @RequestParam(defaultValue = "10") int size) {
		return this.timelines.page(Keys.GLOBAL_TIMELINE, checkPage(page, size), size);
	}

	@GetMapping("/api/timeline/authors")
	Map<String, Profile> homeAuthors(@RequestHeader(value = AUTH, required = false) String auth,
			@RequestParam(defaultValue = "0") int page, @RequestParam(defaultValue = "10") int size) {
		User user = current(auth);
		return authorsOf(this.timelines.page(Keys.timeline(user.id()), checkPage(page, size), size));
	}

	@GetMapping("/api/timeline/global/authors")
	Map<String, Profile> globalAuthors(@RequestParam(defaultValue = "0") int page,
			@RequestParam(defaultValue = "10") int size) {
		return authorsOf(this.timelines.page(Keys.GLOBAL_TIMELINE, checkPage(page, size), size));
	}

	@GetMapping("/api/users/{name}")
	Profile profile(@PathVariable String name) {
		return this.profiles.profile(Validation.name(name));
	}

	@GetMapping("/api/users/{name}/posts")
	List<Post> postsOf(@PathVariable String name, @RequestParam(defaultValue = "0") int page,
			@RequestParam(defaultValue = "10") int size) {
		long id = this.users.require(Validation.name(name));
		return this.timelines.page(Keys.posts(id), checkPage(page, size), size);
	}

	@GetMapping("/api/users/{name}/followers")
	List<String> followers(@PathVariable String name) {
		return names(this.social.followers(this.users.require(Validation.name(name))));
	}

	@GetMapping("/api/users/{name}/common-followers/{other}")
	List<String> commonFollowers(@PathVariable String name, @PathVariable String other) {
		return names(this.social.commonFollowers(this.users.require(Validation.name(name)),
				this.users.require(Validation.name(other))));
	}

	private User current(String auth) {
		User user = this.users.authenticate(auth);
		this.lastSeen.touch(user.id());
		this.analytics.active(user.id());
		return user;
	}

	private Map<String, Profile> authorsOf(List<Post> page) {
		return this.authors.of(page.stream().map(Post::name).toList());
	}

	private List<String> names(List<Long> ids) {
		return ids.stream().map(this.users::nameOf).toList();
	}

	private static Credentials check(Credentials credentials) {
		if (credentials == null) {
			throw ApiException.badRequest("Send {\"name\": \"...\", \"password\": \"...\"}");
		}
		String name = Validation.name(credentials.name());
		String password = Validation.required("password", credentials.password(), 100);
		if (password.length() < 6) {
			throw ApiException.badRequest("'password' must have at least 6 characters");
		}
		return new Credentials(name, password);
	}

	private static int checkPage(int page, int size) {
		if (page < 0 || page > 100 || size < 1 || size > 50) {
			throw ApiException.badRequest("'page' must be 0..100 and 'size' 1..50");
		}
		return page;
	}

	record Credentials(String name, String password) {
	}

	record NewPost(String text) {
	}

}
