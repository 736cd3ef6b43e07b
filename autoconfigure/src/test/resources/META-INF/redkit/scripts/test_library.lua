-- a function shared by test scripts
local function twice(x)
  return 2 * x
end
